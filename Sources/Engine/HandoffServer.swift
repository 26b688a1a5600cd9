import Basics
import Crypto
import Foundation
import Synchronization
import Wire

/// The engine's end of the same-machine handoff (`LocalHandoff`): a Unix socket in the data
/// folder, readable by this user only, where clients on this machine send each upload's file as
/// an open descriptor. Each connection is served on its own thread, at most `maxConnections` at
/// once; one silent for a minute is closed.
final class HandoffServer: Sendable {
    /// What the tus `OPTIONS` answer offers.
    let offer: LocalHandoff.Offer
    private let listening: MessageSocket
    private let connections = Mutex(0)
    static let maxConnections = 64

    /// Listens at `folder/handoff.sock`; `nil` when the socket cannot be made there (a path too
    /// long for a socket address, a file system without sockets): clients then send bytes over HTTP.
    init?(folder: String, tus: TusEndpoint, log: (@Sendable (String) -> Void)?) {
        guard let real = RealPath.of(folder), let listening = try? MessageSocket.listen(real + "/handoff.sock") else { return nil }
        self.listening = listening
        offer = LocalHandoff.Offer(path: real + "/handoff.sock", token: RandomID.hex32())
        let thread = Thread { [self] in acceptConnections(tus, log: log) }
        thread.name = "pipeline-handoff"
        thread.start()
    }

    /// Serves each connection on a thread of its own, until `stop`.
    private func acceptConnections(_ tus: TusEndpoint, log: (@Sendable (String) -> Void)?) {
        while let connection = listening.accept() {
            let admitted = connections.withLock { count in
                guard count < Self.maxConnections else { return false }
                count += 1
                return true
            }
            guard admitted else { continue }  // closed as it goes
            let offer = offer
            Thread { [self] in
                Self.serve(connection, offer: offer, tus: tus, log: log)
                connections.withLock { $0 -= 1 }
            }.start()
        }
    }

    /// Stops taking connections and removes the socket; connections being served end as they go.
    func stop() {
        listening.shutDown()
        unlink(offer.path)
    }

    /// Greets, then answers each request until the client closes or falls silent; each is
    /// logged as a request is (`HANDOFF create /resumable/files/ID 201 3ms`).
    private static func serve(_ connection: MessageSocket, offer: LocalHandoff.Offer, tus: TusEndpoint, log: (@Sendable (String) -> Void)?) {
        guard connection.send(offer.greeting) else { return }
        // A client killed mid-copy is not copied for to the end.
        let gone = { connection.peerIsGone }
        while let (message, file) = connection.receive(waiting: .seconds(60)) {
            let started = ContinuousClock.now
            let reply: LocalHandoff.Reply
            var line: String
            if file < 0 {
                reply = .refused(status: 400, message: "a request comes with the file's descriptor")
                line = "HANDOFF ?"
            } else if let request = LocalHandoff.Create(message: message) {
                reply = tus.create(request, from: file, stop: gone)
                line = "HANDOFF create"
            } else if let request = LocalHandoff.Append(message: message) {
                reply = tus.append(request, from: file, stop: gone)
                line = "HANDOFF append \(LocalEngine.tusPath)\(request.id.printable)"
            } else {
                reply = .refused(status: 400, message: "expected 'create <length> <metadata>' or 'append <id> <offset> <length>'")
                line = "HANDOFF ?"
            }
            if file >= 0 { close(file) }
            switch reply {
            case .created(let location, _): line += " \(location) 201"
            case .stored: line += " 204"
            case .refused(let status, _): line += " \(status)"
            }
            log?(line + " \((ContinuousClock.now - started).inMilliseconds)ms")
            guard connection.send(reply.message) else { return }
        }
    }
}
