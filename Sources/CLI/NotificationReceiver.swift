import Basics
import Client
import Foundation
import HTTPServer
import Synchronization
import Wire

/// The HTTP side of `pipeline notify receive`: takes POSTed notifications (multipart or
/// urlencoded forms), answers 403 to one whose signature does not hold under the Auth Secret, and
/// counts the Assemblies it expects as they report that they ended.
final class NotificationReceiver: HTTPServerHandler, Sendable {
    private let secret: String
    private let expected: Set<String>
    private let say: @Sendable (String) -> Void
    private let state = Mutex<(ended: Set<String>, waiter: CheckedContinuation<Bool, Never>?, timedOut: Bool)>(([], nil, false))

    /// Receives notifications of the Assemblies `expected`; `say` hears one line per notification.
    init(secret: String, expected: Set<String>, say: @escaping @Sendable (String) -> Void) {
        (self.secret, self.expected, self.say) = (secret, expected, say)
    }

    /// The expected Assemblies that have not reported their end yet.
    var waitingFor: Set<String> { state.withLock { expected.subtracting($0.ended) } }

    /// The most a notification's body may hold: a status with thousands of results.
    static let largestBody = 8 << 20

    func plan(_ head: RequestHead) -> RequestPlan {
        guard head.method == "POST" else { return .respond(.text(405, "notifications are POSTed")) }
        let contentType = head.headers["Content-Type"]
        return .collect(limit: Self.largestBody) { [self] body in
            do throws(ReceivedNotification.Unreadable) {
                return receive(try ReceivedNotification(body: body, contentType: contentType))
            } catch {
                switch error {
                case .noNotification: return .text(400, "no transloadit field in a multipart/form-data or urlencoded body")
                case .repeated(let field):
                    say("refused a notification with more than one \(field) field")
                    return .text(400, "more than one \(field) field")
                case .ambiguousPart:
                    say("refused a notification with a part whose Content-Disposition does not parse or names it twice")
                    return .text(400, "a part whose Content-Disposition does not parse or names it twice")
                }
            }
        }
    }

    private func receive(_ notification: ReceivedNotification) -> ServerResponse {
        guard notification.isSigned(with: secret) else {
            say("refused a notification whose signature does not match the Auth Secret")
            return .text(403, "the signature does not match")
        }
        guard let status = notification.status, let id = status.assemblyID else { return .text(400, "the transloadit field is no Assembly status") }
        let code = status.word ?? "?"
        let ended = !(status.error == nil && status.ok.map(AssemblyStatusCode.busy.contains) == true)
        guard expected.contains(id) else {
            say("Assembly \(id): \(code.printable) (not one this run waits for)")
            return .text(200, "ok")
        }
        record(id, code, ended: ended, by: .notification)
        return .text(200, "ok")
    }

    /// Who told of an Assembly's state.
    enum Teller: String {
        case notification = "notified"
        case service = "as the service says"
    }

    /// Counts `id` as `code` (ended or not), as `teller` said; each notification is said, the service's word once.
    func record(_ id: String, _ code: String, ended: Bool, by teller: Teller) {
        let (waiter, isNew) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Bool) in
            let isNew = ended && state.ended.insert(id).inserted
            guard expected.isSubset(of: state.ended) else { return (nil, isNew) }
            defer { state.waiter = nil }
            return (state.waiter, isNew)
        }
        if isNew || teller == .notification {
            say("Assembly \(id): \(code.printable), \(teller.rawValue) (\(expected.count - waitingFor.count) of \(expected.count) ended)")
        }
        waiter?.resume(returning: true)
    }

    /// Whether every expected Assembly reported its end within `timeout`.
    func allEnded(within timeout: Duration) async -> Bool {
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            state.withLock { state in
                defer { (state.waiter, state.timedOut) = (nil, true) }
                return state.waiter
            }?.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let answer = state.withLock { state -> Bool? in
                if expected.isSubset(of: state.ended) { return true }
                if state.timedOut { return false }
                state.waiter = continuation
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }
}
