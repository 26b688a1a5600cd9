import Basics
import Foundation
import Synchronization

/// A clock that moves only when a test advances it, as swift-nio's `EmbeddedEventLoop.advanceTime`:
/// `sleep` suspends until `advance(by:)` carries `now` past its deadline; `sleepers` and
/// `waitForSleepers(_:)` let a test wait until the code under test is waiting.
public final class ManualClock: MonotonicClock {
    private struct Sleeper {
        let id: Int
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var date: Date
        var sleepers: [Sleeper] = []
        var nextID = 0
        var waits: [Duration] = []
    }

    private let state: Mutex<State>

    /// A clock whose time starts now (and whose date is today's) and stands still.
    public init(now: ContinuousClock.Instant = .now, date: Date = Date()) {
        state = Mutex(State(now: now, date: date))
    }

    /// The clock's current instant.
    public var now: ContinuousClock.Instant { state.withLock { $0.now } }

    /// The clock's date, moved on as its instant is.
    public var date: Date { state.withLock { $0.date } }

    /// Every wait asked for, in order.
    public var waits: [Duration] { state.withLock { $0.waits } }

    /// How many are waiting now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock is advanced `duration` past now (a wait of zero or less returns at once).
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int in
            state.waits.append(duration)
            state.nextID += 1
            return state.nextID
        }
        guard duration > .zero else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock `duration` on and resumes every sleeper whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            state.date += duration.inSecondsForDates
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, yielding) until at least `count` are sleeping on the clock; false when
    /// that has not happened within `patience`.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, patience: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + patience
        while sleepers < count {
            guard ContinuousClock.now < deadline else { return false }
            do { try await Task.sleep(for: .milliseconds(1)) } catch { return false }  // real time, while another task reaches its sleep
        }
        return true
    }
}

extension Duration {
    /// The duration in seconds, as dates count them.
    var inSecondsForDates: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
