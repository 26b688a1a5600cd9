import Basics
import Foundation
import Synchronization

/// A clock that moves on by each wait at once and remembers every wait: code that retries or
/// polls runs through its waits without sleeping, and the test reads what they were.
public final class ImpatientClock: MonotonicClock {
    private let state = Mutex((now: ContinuousClock.now, date: Date(), sleeps: [Duration]()))

    /// A clock starting now.
    public init() {}

    /// The clock's current instant: the start plus every wait so far.
    public var now: ContinuousClock.Instant { state.withLock { $0.now } }

    /// The date: today's at the start, plus every wait so far.
    public var date: Date { state.withLock { $0.date } }

    /// Every wait asked for, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Moves the clock on by `duration` at once (throws when the task is cancelled).
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.now += max(duration, .zero)
            $0.date += max(duration, .zero).inSecondsForDates
            $0.sleeps.append(duration)
        }
    }
}
