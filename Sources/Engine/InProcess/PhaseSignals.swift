import Synchronization

/// Callers in the engine's process waiting for an Assembly to move on, each a suspended task
/// (no thread held): resumed when its phase changes, its time is up, its task is cancelled, or
/// the engine stops.
final class PhaseSignals: Sendable {
    private struct State {
        var stopping = false
        var next = 0
        var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    /// Assembly `id` moved on: every caller waiting for it resumes.
    func moved(_ id: String) {
        let resumed = state.withLock { $0.waiting.removeValue(forKey: id) }
        for continuation in (resumed ?? [:]).values { continuation.resume() }
    }

    /// The engine stops: every caller resumes, and later waits return at once.
    func stop() {
        let resumed = state.withLock { state in
            state.stopping = true
            defer { state.waiting = [:] }
            return state.waiting.values.flatMap(\.values)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Returns once `id` moves on, `timeout` has passed, the task is cancelled or the engine
    /// stops, whichever is first. `stillThere` is asked once the caller is registered: false (it
    /// moved meanwhile, before `moved` could see this caller) returns at once.
    func wait(for id: String, timeout: Duration, stillThere: @escaping @Sendable () -> Bool) async {
        let number = state.withLock { state in
            state.next += 1
            return state.next
        }
        let timer = Mutex<Task<Void, Never>?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let registered = state.withLock { state in
                    guard !Task.isCancelled, !state.stopping else { return false }
                    state.waiting[id, default: [:]][number] = continuation
                    return true
                }
                guard registered else { return continuation.resume() }
                // Started once registered, so its resume always finds the caller (or nothing, when it left sooner).
                timer.withLock { timer in
                    timer = Task { [self] in
                        _ = await Task.pause(for: timeout)  // cancelled when the caller resumed sooner: nothing to do then
                        resume(id, number)
                    }
                }
                if !stillThere() { resume(id, number) }
            }
        } onCancel: {
            resume(id, number)
        }
        timer.withLock { $0?.cancel() }
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
