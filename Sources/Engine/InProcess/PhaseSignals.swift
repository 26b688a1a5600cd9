import Synchronization

/// Callers in the engine's process waiting for an Assembly to move on, each a suspended task
/// (no thread held): resumed when its phase changes, its time is up, or its task is cancelled.
final class PhaseSignals: Sendable {
    private struct State {
        var next = 0
        var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    /// Assembly `id` moved on: every caller waiting for it resumes.
    func moved(_ id: String) {
        let resumed = state.withLock { $0.waiting.removeValue(forKey: id) }
        for continuation in (resumed ?? [:]).values { continuation.resume() }
    }

    /// Returns once `id` moves on, `timeout` has passed, or the task is cancelled, whichever is
    /// first. `stillThere` is asked after the caller is registered: false (it moved meanwhile,
    /// before `moved` could see this caller) returns at once.
    func wait(for id: String, timeout: Duration, stillThere: @escaping @Sendable () -> Bool) async {
        let number = state.withLock { state in
            state.next += 1
            return state.next
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)  // cancelled when the caller resumed sooner: nothing to do then
            resume(id, number)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.waiting[id, default: [:]][number] = continuation
                    return false
                }
                if cancelled { continuation.resume() } else if !stillThere() { resume(id, number) }
            }
        } onCancel: {
            resume(id, number)
        }
        timer.cancel()
    }

    private func resume(_ id: String, _ number: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let found = state.waiting[id]?.removeValue(forKey: number)
            if state.waiting[id]?.isEmpty == true { state.waiting[id] = nil }
            return found
        }
        continuation?.resume()
    }
}
