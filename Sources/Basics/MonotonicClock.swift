import Foundation

/// The time code sees: now, the date it is, and waiting. Passed in at the edge so tests move
/// time instead of sleeping.
public protocol MonotonicClock: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }
    /// The wall-clock date now (what expiries and records are kept in).
    var date: Date { get }
    /// Waits `duration` (throws when the task is cancelled).
    func sleep(for duration: Duration) async throws
}

extension MonotonicClock {
    /// Waits until `deadline` (at once when it has passed).
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let left = deadline - now
        if left > .zero { try await sleep(for: left) } else { try Task.checkCancellation() }
    }
}

/// The machine's monotonic clock.
public struct SystemClock: MonotonicClock {
    /// Creates the clock.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }

    /// `Date()`.
    public var date: Date { Date() }

    /// `Task.sleep`.
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
