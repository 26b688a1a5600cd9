import Synchronization

/// Async work waited for by a thread that cannot suspend (a server's connection thread, a robot's
/// worker): the work runs as a task while the thread blocks. Never call it from a task itself.
public enum BlockingWait {
    /// The outcome of `operation`; when `isCanceled` says yes (asked every 200 ms), the task is
    /// canceled and its outcome (usually a cancellation error) still awaited.
    public static func result<Value: Sendable>(
        isCanceled: (@Sendable () -> Bool)? = nil, _ operation: @escaping @Sendable () async throws -> Value
    ) -> Result<Value, any Error> {
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        let finished = WakeSignal()
        let task = Task {
            do {
                let value = try await operation()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            finished.signal()
        }
        if let isCanceled {
            while !finished.wait(atMost: .milliseconds(200)) {
                if isCanceled() { task.cancel() }
            }
        } else {
            finished.wait()
        }
        return outcome.withLock { $0 } ?? .failure(CancellationError())
    }
}
