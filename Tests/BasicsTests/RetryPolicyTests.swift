import Basics
import Synchronization
import TestSupport
import XCTest

/// Random numbers from a fixed sequence (xorshift), so jitter is the same on every run.
private struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// Random numbers always at the top of their range: jitter at its largest.
private struct HighestRandom: RandomNumberGenerator {
    mutating func next() -> UInt64 { .max }
}

final class RetryPolicyTests: XCTestCase {
    func testExponentialBackoffDoublesToItsCap() {
        let backoff = Backoff.doubling(cap: .seconds(30))
        XCTAssertEqual((1...8).map { backoff.base(beforeRetry: $0) },
                       [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
    }

    func testListedBackoffRepeatsItsLastWait() {
        let backoff = Backoff(.listed([.zero, .seconds(1), .seconds(3)]))
        XCTAssertEqual((1...5).map { backoff.base(beforeRetry: $0) }, [.zero, .seconds(1), .seconds(3), .seconds(3), .seconds(3)])
        XCTAssertEqual(Backoff(.listed([])).base(beforeRetry: 1), .zero)
    }

    func testJitterAddsAtMostItsShareAndVaries() {
        let backoff = Backoff.doubling(cap: .seconds(30), jitter: 0.1)
        var random = SeededRandom(state: 42)
        let waits = (0..<50).map { _ in backoff.jittered(.seconds(10), using: &random) }
        XCTAssertTrue(waits.allSatisfy { $0 >= .seconds(10) && $0 <= .seconds(11) }, "\(waits)")
        XCTAssertGreaterThan(Set(waits).count, 40, "jitter spreads the waits")
        var highest = HighestRandom()
        XCTAssertEqual(backoff.jittered(.seconds(10), using: &highest), .seconds(11))
        XCTAssertEqual(Backoff.doubling(cap: .seconds(1)).jittered(.seconds(10), using: &random), .seconds(10), "no jitter: the wait as it is")
    }

    func testAStatedWaitReplacesTheBackoffWithinItsBound() {
        let policy = RetryPolicy(attempts: 4, backoff: .doubling(cap: .seconds(30)), longestStatedWait: .seconds(60))
        var random = SeededRandom(state: 7)
        XCTAssertEqual(policy.wait(afterAttempt: 1, using: &random), .seconds(1))
        XCTAssertEqual(policy.wait(afterAttempt: 2, advice: .init(statedSeconds: 7.5), using: &random), .milliseconds(7500))
        XCTAssertEqual(policy.wait(afterAttempt: 2, advice: .init(statedSeconds: 600), using: &random), .seconds(60), "a stated wait is capped")
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: 0), using: &random), .zero, "zero: at once")
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: -1), using: &random), .seconds(4), "below zero is no advice")
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: -.infinity), using: &random), .seconds(4))
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: .nan), using: &random), .seconds(4))
    }

    func testAStatedWaitCanOnlyLengthenTheBackoff() {
        let policy = RetryPolicy(attempts: 6, backoff: Backoff(.exponential(first: .milliseconds(200), factor: 2, cap: .seconds(10))),
                                 longestStatedWait: .seconds(10), statedWaitExtendsBackoff: true)
        var random = SeededRandom(state: 5)
        XCTAssertEqual(policy.wait(afterAttempt: 3, using: &random), .milliseconds(800))
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: 0.1), using: &random), .milliseconds(800), "a shorter stated wait: the backoff's")
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: 2), using: &random), .seconds(2))
        XCTAssertEqual(policy.wait(afterAttempt: 3, advice: .init(statedSeconds: 3600), using: &random), .seconds(10), "within the longest")
        XCTAssertEqual(policy.wait(afterAttempt: 5, using: &random), .milliseconds(3200))
    }

    func testTheLastAttemptHasNoWait() {
        let policy = RetryPolicy(attempts: 3, backoff: .doubling(cap: .seconds(30)))
        var random = SeededRandom(state: 1)
        XCTAssertNotNil(policy.wait(afterAttempt: 2, using: &random))
        XCTAssertNil(policy.wait(afterAttempt: 3, using: &random))
        XCTAssertNil(RetryPolicy(attempts: 0, backoff: .doubling(cap: .seconds(1))).wait(afterAttempt: 1, using: &random), "at least one attempt, never a retry")
    }

    func testARateLimitWaitsAtLeastItsShortest() {
        let policy = RetryPolicy(attempts: 5, backoff: Backoff(.listed([.zero, .seconds(1)])), shortestRateLimitWait: .seconds(1))
        var random = SeededRandom(state: 3)
        XCTAssertEqual(policy.wait(afterAttempt: 1, using: &random), .zero)
        XCTAssertEqual(policy.wait(afterAttempt: 1, advice: .init(isRateLimit: true), using: &random), .seconds(1))
        XCTAssertEqual(policy.wait(afterAttempt: 1, advice: .init(statedSeconds: 0.2, isRateLimit: true), using: &random), .seconds(1))
        XCTAssertEqual(policy.wait(afterAttempt: 1, advice: .init(statedSeconds: 5, isRateLimit: true), using: &random), .seconds(5))
    }

    func testRunWaitsOnTheClockBetweenAttemptsAndGivesUpWhenSpent() async throws {
        struct Refused: Error { let retryIn: Double? }
        let policy = RetryPolicy(attempts: 3, backoff: .doubling(cap: .seconds(30)))
        let clock = ManualClock()
        let calls = Mutex(0)
        let task = Task {
            try await policy.run(on: clock, advice: { ($0 as? Refused).map { .init(statedSeconds: $0.retryIn) } }) { () async throws -> Int in
                let call = calls.withLock { $0 += 1; return $0 }
                throw Refused(retryIn: call == 2 ? 5 : nil)
            }
        }
        let firstWaiting = await clock.waitForSleepers()
        XCTAssertTrue(firstWaiting)
        XCTAssertEqual(calls.withLock { $0 }, 1)
        clock.advance(by: .milliseconds(999))
        XCTAssertEqual(clock.sleepers, 1, "not yet: the wait is a second")
        clock.advance(by: .milliseconds(1))
        while calls.withLock({ $0 }) < 2 || clock.sleepers < 1 { await Task.yield() }
        clock.advance(by: .seconds(5))
        do {
            _ = try await task.value
            XCTFail("three failures in three attempts")
        } catch let refused as Refused {
            XCTAssertEqual(refused.retryIn, nil, "the last failure")
        }
        XCTAssertEqual(calls.withLock { $0 }, 3)
        XCTAssertEqual(clock.waits, [.seconds(1), .seconds(5)], "the backoff's first wait, then the stated one")
    }

    func testRunDoesNotRetryWhatTheAdviceRefuses() async {
        struct Fatal: Error {}
        let calls = Mutex(0)
        let policy = RetryPolicy(attempts: 5, backoff: .doubling(cap: .seconds(30)))
        let clock = ManualClock()
        do {
            _ = try await policy.run(on: clock, advice: { _ in nil }) { () async throws -> Int in
                calls.withLock { $0 += 1 }
                throw Fatal()
            }
            XCTFail("a failure that is not retried is thrown")
        } catch {
            XCTAssertTrue(error is Fatal)
        }
        XCTAssertEqual(calls.withLock { $0 }, 1)
        XCTAssertEqual(clock.waits, [])
    }

    func testManualClockCancellationEndsASleep() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers()
        task.cancel()
        do {
            try await task.value
            XCTFail("a cancelled sleep throws")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        XCTAssertEqual(clock.sleepers, 0)
    }
}
