import Foundation

/// Owns SIGINT and SIGTERM for the whole process. A signal handler (on whichever thread the
/// kernel picks) only writes the signal's number into a pipe; one thread reads it and hands it to
/// the command waiting for it, so none is lost however early it arrives. When no command waits,
/// the process ends the way an unhandled signal would.
public enum SignalCenter {
    private static let state = SignalState()

    /// Installs the handler and starts the thread that reads the pipe. Call first thing in `main`.
    public static func install() {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return }
        signalPipeWriter = descriptors[1]
        let reader = descriptors[0]
        let thread = Thread {
            var number: UInt8 = 0
            while true {
                let count = read(reader, &number, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return }
                if !state.deliver(Int32(number)) {
                    _exit(128 + Int32(number))
                }
            }
        }
        thread.name = "pipeline.signals"
        thread.start()
        for number in [SIGINT, SIGTERM] {
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

    fileprivate final class SignalState: @unchecked Sendable {
        private let lock = NSLock()
        private var waiters: [SignalWaiter] = []

        func register(_ waiter: SignalWaiter) { lock.withLock { waiters.append(waiter) } }

        /// Whether a waiter took the signal; a second Ctrl-C finds none and ends the process.
        func deliver(_ number: Int32) -> Bool {
            let current = lock.withLock { waiters }
            return current.map { $0.deliver(number) }.contains(true)
        }
    }
}

/// Lets a task wait for the first SIGINT or SIGTERM (see `SignalCenter`).
final class SignalWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var continuation: CheckedContinuation<Int32, Never>?

    /// The first signal caught.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let ready: Int32? = lock.withLock {
                if let received { return received }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Whether a signal came (for code that polls rather than waits).
    var hasReceived: Bool { lock.withLock { received != nil } }

    /// The exit status of a process the signal ended: 130 for SIGINT, 143 for SIGTERM.
    var exitStatus: Int32 { 128 + (lock.withLock { received } ?? SIGINT) }

    /// Takes the first signal; `false` for any later one.
    func deliver(_ number: Int32) -> Bool {
        let (taken, waiting): (Bool, CheckedContinuation<Int32, Never>?) = lock.withLock {
            guard received == nil else { return (false, nil) }
            received = number
            defer { continuation = nil }
            return (true, continuation)
        }
        waiting?.resume(returning: number)
        return taken
    }
}

/// Where the signal handler writes; set once before the handler is installed.
nonisolated(unsafe) private var signalPipeWriter: Int32 = -1

/// Async-signal-safe: writes the signal's number to the pipe and nothing else.
private let signalHandler: @convention(c) (Int32) -> Void = { number in
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriter, &byte, 1)
}
