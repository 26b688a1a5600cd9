import Foundation

/// Asks `probe` every 20 ms until it answers, for at most `timeout`: its answer, or nil. Tests
/// wait on what they need instead of sleeping a fixed time; this is the suite's one polling loop.
public func firstAnswer<Answer>(within timeout: Duration = .seconds(20), _ probe: () async throws -> Answer?) async rethrows -> Answer? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let answer = try await probe() { return answer }
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: .milliseconds(20))  // cancelled: the next ask ends the wait as the deadline would
    }
}

/// Waits until `condition` holds, for at most `timeout`; whether it held.
@discardableResult
public func eventually(within timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    await firstAnswer(within: timeout) { condition() ? true : nil } ?? false
}

/// `eventually` for code that cannot suspend (a thread of its own, a process being started):
/// blocks its thread between asks, every `interval`.
@discardableResult
public func eventuallyBlocking(within timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(10), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
    return true
}
