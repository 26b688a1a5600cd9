import Foundation

/// The time a run sees: now, and waiting. Tests use a clock that only moves when waited on.
public protocol RunClock: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }
    /// Waits `duration` (throws when the task is cancelled).
    func sleep(for duration: Duration) async throws
}

/// The machine's monotonic clock.
public struct SystemRunClock: RunClock {
    /// Creates the clock.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }

    /// `Task.sleep`.
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
