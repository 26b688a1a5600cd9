import Synchronization

/// Work in flight that a stop waits for: `enter` and `leave` around each piece, and `wait` until
/// none is left, woken by the last `leave` (no polling).
public final class Drain: Sendable {
    private let state = Mutex<(count: Int, waiters: [WakeSignal])>((0, []))

    /// Creates a drain with nothing in flight.
    public init() {}

    /// Pieces in flight now.
    public var count: Int { state.withLock { $0.count } }

    /// A piece begins.
    public func enter() { state.withLock { $0.count += 1 } }

    /// A piece ended; the last one wakes those waiting.
    public func leave() {
        state.withLock { state in
            state.count -= 1
            if state.count == 0 {
                state.waiters.forEach { $0.signal() }
                state.waiters.removeAll()
            }
        }
    }

    /// Waits until nothing is in flight, `longest` at most; whether nothing is.
    @discardableResult
    @available(*, noasync, message: "blocks its thread")
    public func wait(atMost longest: Duration) -> Bool {
        let signal = state.withLock { state -> WakeSignal? in
            guard state.count > 0 else { return nil }
            let signal = WakeSignal()
            state.waiters.append(signal)
            return signal
        }
        guard let signal else { return true }
        return signal.wait(atMost: longest)
    }
}
