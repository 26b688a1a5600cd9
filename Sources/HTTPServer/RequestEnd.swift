import Synchronization

/// What is to run once a request has ended (`RequestHead.whenEnded`): its answer handed to the
/// connection whole, or the connection gone. libmicrohttpd says so after the last byte of the
/// answer is written; an action registered after that runs at once.
final class RequestEnd: Sendable {
    private let actions = Mutex<[@Sendable () -> Void]?>([])

    /// Runs `action` when the request ends (at once when it has).
    func add(_ action: @escaping @Sendable () -> Void) {
        let now = actions.withLock { actions -> Bool in
            guard actions != nil else { return true }
            actions?.append(action)
            return false
        }
        if now { action() }
    }

    /// The request ended: every action runs, once.
    func ended() {
        for action in actions.withLock({ actions in defer { actions = nil }; return actions ?? [] }) { action() }
    }
}
