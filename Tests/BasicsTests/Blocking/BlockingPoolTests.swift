import Basics
import Synchronization
import TestSupport
import XCTest

/// The bounded pool: every piece runs, never more at once than its threads, and threads that
/// have nothing to do end.
final class BlockingPoolTests: XCTestCase {
    func testEveryPieceRunsAndNoMoreThanTheCapAtOnce() {
        let pool = BlockingPool("cap-pool", threads: 3)
        let counts = Mutex((running: 0, most: 0, done: 0))
        let gate = WakeSignal()
        for _ in 0..<20 {
            pool.submit {
                counts.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                gate.wait()
                counts.withLock { $0.running -= 1; $0.done += 1 }
            }
        }
        XCTAssertTrue(eventuallyBlocking { counts.withLock { $0.running } == 3 }, "three run at once")
        for _ in 0..<20 { gate.signal() }
        XCTAssertTrue(eventuallyBlocking { counts.withLock { $0.done } == 20 }, "every piece ran")
        XCTAssertEqual(counts.withLock { $0.most }, 3, "never more than the pool's threads")
    }

    func testIdleThreadsEndAndNewWorkStartsOneAgain() {
        let pool = BlockingPool("idle-pool", threads: 2, keepAlive: .milliseconds(50))
        let done = Drain()
        let gate = WakeSignal()
        for _ in 0..<4 {
            done.enter()
            pool.submit {
                gate.wait()
                done.leave()
            }
        }
        XCTAssertTrue(eventuallyBlocking { ProcessState.threadNames.filter { $0.hasPrefix("idle-pool-") }.count == 2 }, "two threads, named")
        for _ in 0..<4 { gate.signal() }
        XCTAssertTrue(done.wait(atMost: .seconds(20)))
        XCTAssertTrue(eventuallyBlocking { !ProcessState.threadNames.contains { $0.hasPrefix("idle-pool") } }, "idle threads ended")
        done.enter()
        pool.submit { done.leave() }
        XCTAssertTrue(done.wait(atMost: .seconds(20)), "work after the threads ended still runs")
    }

    func testRunGivesTheValueOrTheError() async throws {
        let pool = BlockingPool("run-pool", threads: 1)
        let value = try await pool.run { 6 * 7 }
        XCTAssertEqual(value, 42)
        struct Refused: Error {}
        do {
            _ = try await pool.run { () throws -> Int in throw Refused() }
            XCTFail("the error comes back")
        } catch is Refused {}
    }
}

/// A wake-up with a deadline: a signal given before the wait is kept, and a wait without one
/// ends at its deadline.
final class WakeSignalTests: XCTestCase {
    func testASignalGivenFirstIsKept() {
        let signal = WakeSignal()
        signal.signal()
        XCTAssertTrue(signal.wait(atMost: .zero))
        XCTAssertFalse(signal.wait(atMost: .milliseconds(20)), "each signal wakes one wait")
    }

    func testAWaitEndsAtItsDeadline() {
        let signal = WakeSignal()
        let start = ContinuousClock.now
        XCTAssertFalse(signal.wait(until: start + .milliseconds(50)))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(50))
        XCTAssertFalse(signal.wait(atMost: .seconds(-1)), "a deadline passed: no wait")
    }

    func testASignalFromAnotherThreadWakesTheWait() {
        let signal = WakeSignal()
        DedicatedThread.start("signal-giver") { signal.signal() }
        XCTAssertTrue(signal.wait(atMost: .seconds(20)))
    }
}

/// Blocking work fanned out over threads: every index once.
final class ParallelWorkTests: XCTestCase {
    func testForEachRunsEveryIndexOnce() {
        let seen = Mutex([Int: Int]())
        ParallelWork.forEach(count: 1000, workers: 4) { index in seen.withLock { $0[index, default: 0] += 1 } }
        XCTAssertEqual(seen.withLock { $0 }, Dictionary(uniqueKeysWithValues: (0..<1000).map { ($0, 1) }))
    }

    func testMapKeepsTheOrder() {
        let squares = ParallelWork.map(count: 500, workers: 3, placeholder: -1) { { $0 * $0 } }
        XCTAssertEqual(squares, (0..<500).map { $0 * $0 })
    }
}
