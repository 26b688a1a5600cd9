import Basics
import Foundation
import Synchronization

/// Owns SIGINT, SIGTERM and SIGWINCH for the whole process. A signal handler (on whichever
/// thread the kernel picks) only writes the signal's number into a pipe; one thread reads it and
/// hands it to the command waiting for it, so none is lost however early it arrives. When no
/// command waits for SIGINT or SIGTERM, the process ends the way an unhandled signal would;
/// SIGWINCH (the terminal was resized) goes to whoever draws on it, and is otherwise ignored.
public enum SignalCenter {
    private static let state = SignalState()

    /// Installs the handler and starts the thread that reads the pipe. Call first thing in `main`.
    public static func install() {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return }
        signalPipeWriter.store(descriptors[1], ordering: .releasing)
        let reader = descriptors[0]
        DedicatedThread.start("signals") {
            var number: UInt8 = 0
            while true {
                let count = SystemCall.uninterrupted { read(reader, &number, 1) }
                guard count == 1 else { return }
                if Int32(number) == SIGWINCH {
                    state.resized()
                } else if !state.deliver(Int32(number)) {
                    _exit(128 + Int32(number))
                }
            }
        }
        for number in [SIGINT, SIGTERM, SIGWINCH] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = signalHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// From now on, SIGINT and SIGTERM go to the returned waiter instead of ending the process.
    static func waiter() -> SignalWaiter {
        let waiter = SignalWaiter()
        state.register(waiter)
        return waiter
    }

    /// From now on, `handler` (replacing any earlier one) runs on the signal thread each time the
    /// terminal is resized.
    static func onResize(_ handler: @escaping @Sendable () -> Void) {
        state.resizeHandler.withLock { $0 = Callback { _ in handler() } }
    }

    fileprivate final class SignalState: Sendable {
        private let waiters = Mutex<[SignalWaiter]>([])
        let resizeHandler = Mutex<Callback<Void>?>(nil)

        func register(_ waiter: SignalWaiter) { waiters.withLock { $0.append(waiter) } }

        /// Whether a waiter took the signal; a second Ctrl-C finds none and ends the process.
        func deliver(_ number: Int32) -> Bool {
            let current = waiters.withLock { $0 }
            return current.map { $0.deliver(number) }.contains(true)
        }

        func resized() {
            resizeHandler.withLock { $0 }?(())
        }
    }
}

/// Lets a task wait for the first SIGINT or SIGTERM (see `SignalCenter`).
final class SignalWaiter: Sendable {
    private struct State {
        var received: Int32?
        var continuation: CheckedContinuation<Int32, Never>?
    }

    private let state = Mutex(State())

    /// The first signal caught.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let ready: Int32? = state.withLock { state in
                if let received = state.received { return received }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Whether a signal came (for code that polls rather than waits).
    var hasReceived: Bool { state.withLock { $0.received != nil } }

    /// The exit status of a process the signal ended: 130 for SIGINT, 143 for SIGTERM.
    var exitStatus: Int32 { 128 + (state.withLock { $0.received } ?? SIGINT) }

    /// Takes the first signal; `false` for any later one.
    func deliver(_ number: Int32) -> Bool {
        let (taken, waiting): (Bool, CheckedContinuation<Int32, Never>?) = state.withLock { state in
            guard state.received == nil else { return (false, nil) }
            state.received = number
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        waiting?.resume(returning: number)
        return taken
    }
}

/// Where the signal handler writes; set once before the handler is installed (an atomic load is
/// async-signal-safe: no lock, no allocation).
private let signalPipeWriter = Atomic<Int32>(-1)

/// Async-signal-safe: writes the signal's number to the pipe and nothing else.
private let signalHandler: @convention(c) (Int32) -> Void = { number in
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriter.load(ordering: .acquiring), &byte, 1)
}
