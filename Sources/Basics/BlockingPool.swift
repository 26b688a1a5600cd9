import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads for work that blocks (a child process waited for), so async callers
/// never block a thread of their own, nor start one per call. Its threads start with its first
/// piece of work and live as long as the process.
public final class BlockingPool: Sendable {
    /// The process's pool.
    public static let shared = BlockingPool(threads: 8)

    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let ready = DispatchSemaphore(value: 0)
    private let started = Mutex(false)
    private let threads: Int

    /// A pool of `threads` threads.
    public init(threads: Int) { self.threads = max(1, threads) }

    /// Runs `work` on one of the pool's threads and gives its result; waits for a free thread
    /// when every one is busy.
    public func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        startOnce()
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0.append { continuation.resume(with: Result { try work() }) } }
            ready.signal()
        }
    }

    private func startOnce() {
        guard started.withLock({ started in defer { started = true }; return !started }) else { return }
        for index in 0..<threads {
            let thread = Thread { [self] in
                while true {
                    ready.wait()
                    if let work = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { work() }
                }
            }
            thread.name = "blocking-\(index)"
            thread.start()
        }
    }
}
