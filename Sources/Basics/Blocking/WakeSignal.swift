import Dispatch

/// The one way a thread waits for another here: each `signal` wakes one `wait`, now or the next
/// to come, and a wait may end at a deadline. Held requests, writers waiting for an upload, a
/// `Drain`, the pools' idle threads and `BlockingWait` all wait on one.
public final class WakeSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// A signal nobody has given yet.
    public init() {}

    /// Wakes one waiter (or the next to wait).
    public func signal() { semaphore.signal() }

    /// Waits for a signal, however long it takes.
    @available(*, noasync, message: "blocks its thread")
    public func wait() { semaphore.wait() }

    /// Waits for a signal for `longest` at most; whether one came.
    @available(*, noasync, message: "blocks its thread")
    public func wait(atMost longest: Duration) -> Bool {
        // Clamped: a wait of more than a year is a wait for good, and fits a DispatchTime.
        let seconds = min(max(longest.components.seconds, 0), 365 * 86_400)
        let nanoseconds = longest < .zero ? 0 : seconds * 1_000_000_000 + longest.components.attoseconds / 1_000_000_000
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
    }

    /// Holds the calling thread for `duration`: a wait nothing signals (a poll's interval).
    @available(*, noasync, message: "blocks its thread")
    public static func pause(for duration: Duration) {
        _ = WakeSignal().wait(atMost: duration)
    }

    /// Waits for a signal until `deadline` at most (a passed one still takes a signal already given).
    @available(*, noasync, message: "blocks its thread")
    public func wait(until deadline: ContinuousClock.Instant) -> Bool {
        wait(atMost: deadline - ContinuousClock.now)
    }
}
