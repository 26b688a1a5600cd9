import Basics
import Foundation
import Synchronization
import Wire

/// The client's end of the same-machine handoff (`LocalHandoff`): a PATCH's bytes go to the local
/// engine as the file's open descriptor over its Unix socket. Taken only for an endpoint on a
/// loopback address, from a socket that greets with the token the endpoint's `OPTIONS` gave; any
/// failure to reach it turns it off for the rest of the batch, and the bytes go over HTTP.
final class HandoffClient: Sendable {
    private let offer: LocalHandoff.Offer
    /// Connections greeted and not in use, for the next file.
    private let idle = Mutex<[MessageSocket]>([])
    private let broken = Atomic(false)

    /// A client for `offer`, when `endpoint` is on this machine (127.0.0.1, ::1, localhost).
    init?(offer: LocalHandoff.Offer?, endpoint: String) {
        guard let offer, let host = URLComponents(string: endpoint)?.host?.lowercased(),
              ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host) else { return nil }
        self.offer = offer
    }

    /// Whether appends still go this way.
    var isUsable: Bool { !broken.load(ordering: .relaxed) }

    /// Appends `length` bytes of the file at `path` from `offset` to the upload at `url`. `nil`
    /// when the handoff cannot be used (the caller sends the bytes over HTTP); a refusal is the
    /// error a PATCH would have had.
    func append(to url: String, path: String, offset: Int64, length: Int64) async throws(TusError) -> Int64? {
        guard isUsable, let id = url.split(separator: "/").last.map(String.init) else { return nil }
        let request = LocalHandoff.Append(id: id, offset: offset, length: length)
        // Blocking calls, on a thread of their own rather than one of the tasks' threads.
        let reply: LocalHandoff.Reply? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.send(request, path: path)) }
        }
        switch reply {
        case nil:
            broken.store(true, ordering: .relaxed)
            return nil
        case .stored(let stored)?:
            return stored
        case .refused(let status, let message)?:
            throw TusError(TusError.kind(status: status, method: "PATCH"), request: "PATCH \(url) (handed over as a file)", status: status, detail: message)
        }
    }

    /// One request on a greeted connection; `nil` when the socket cannot be reached or answers
    /// out of turn.
    private func send(_ request: LocalHandoff.Append, path: String) -> LocalHandoff.Reply? {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        guard let connection = idle.withLock({ $0.popLast() }) ?? greeted() else { return nil }
        // The engine answers after copying: allow for a slow disk, a second per 50 MB beyond a minute.
        let waiting = Duration.seconds(60 + request.length / 50_000_000)
        guard connection.send(request.message, file: file), let (message, extra) = connection.receive(waiting: waiting) else { return nil }
        if extra >= 0 { close(extra) }
        guard let reply = LocalHandoff.Reply(message: message) else { return nil }
        idle.withLock { $0.append(connection) }
        return reply
    }

    /// A new connection whose greeting carries the offer's token.
    private func greeted() -> MessageSocket? {
        guard let connection = MessageSocket.connect(offer.path),
              let (greeting, extra) = connection.receive(waiting: .seconds(5)) else { return nil }
        if extra >= 0 { close(extra) }
        return greeting == offer.greeting ? connection : nil
    }
}
