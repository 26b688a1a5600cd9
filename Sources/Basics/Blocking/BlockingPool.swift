import Foundation
import Synchronization

/// A bounded set of threads for work that blocks: at most `threads` run at once, and what comes
/// beyond waits its turn. A thread starts when work finds none free and ends after `keepAlive`
/// with nothing to do, so a pool costs nothing while unused and a stopped engine leaves none
/// behind. Async code that must block (a child process, a file copied, a chunk hashed) uses
/// `shared`; a part whose blocking work is long (an engine's running Assemblies, the handoff's
/// connections) owns a pool of its own, so it never takes the shared one's threads.
public final class BlockingPool: Sendable {
    /// The process's pool for short blocking calls from async code.
    public static let shared = BlockingPool("blocking", threads: 8)

    private struct State {
        var pending: [@Sendable () -> Void] = []
        var threads = 0
        /// Threads waiting for work that no `submit` has yet claimed to wake.
        var idle = 0
    }

    private let name: String
    private let most: Int
    private let keepAlive: Duration
    private let state = Mutex(State())
    private let ready = WakeSignal()

    /// A pool of at most `threads` threads called `name-N`, each ending after `keepAlive` idle.
    public init(_ name: String, threads: Int, keepAlive: Duration = .seconds(10)) {
        self.name = name
        most = max(1, threads)
        self.keepAlive = keepAlive
    }

    /// Runs `work` on one of the pool's threads and gives its result; waits for a free thread
    /// when every one is busy.
    public func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Queues `work` for the next free thread (starting one when fewer than the most run) and
    /// returns at once.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        let (wake, start) = state.withLock { state -> (Bool, Int?) in
            state.pending.append(work)
            if state.idle > 0 {
                state.idle -= 1
                return (true, nil)
            }
            guard state.threads < most else { return (false, nil) }
            state.threads += 1
            return (false, state.threads)
        }
        if wake { ready.signal() }
        if let start { DedicatedThread.start("\(name)-\(start)") { [self] in serve() } }
    }

    /// A thread's life: the next piece of work, else a wait for one, else (after `keepAlive`) the end.
    private func serve() {
        while true {
            let next = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.pending.isEmpty else {
                    state.idle += 1
                    return nil
                }
                return state.pending.removeFirst()
            }
            if let next {
                next()
                continue
            }
            if ready.wait(atMost: keepAlive) { continue }
            // Nothing came: this thread ends, unless a `submit` counted on it meanwhile (it then
            // signals, and this thread takes that signal and the work with it).
            let ends = state.withLock { state in
                guard state.idle > 0 else { return false }
                state.idle -= 1
                state.threads -= 1
                return true
            }
            if ends { return }
            ready.wait()
        }
    }
}
