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
    init?(folder: String, tus: TusEndpoint) {
        guard let real = RealPath.of(folder), let listening = try? MessageSocket.listen(real + "/handoff.sock") else { return nil }
        self.listening = listening
        offer = LocalHandoff.Offer(path: real + "/handoff.sock", token: RandomID.hex32())
        let thread = Thread { [self] in acceptConnections(tus) }
        thread.name = "pipeline-handoff"
        thread.start()
    }

    /// Serves each connection on a thread of its own, until `stop`.
    private func acceptConnections(_ tus: TusEndpoint) {
        while let connection = listening.accept() {
            let admitted = connections.withLock { count in
                guard count < Self.maxConnections else { return false }
                count += 1
                return true
            }
            guard admitted else { continue }  // closed as it goes
            let offer = offer
            Thread { [self] in
                Self.serve(connection, offer: offer, tus: tus)
                connections.withLock { $0 -= 1 }
            }.start()
        }
    }

    /// Stops taking connections and removes the socket; connections being served end as they go.
    func stop() {
        listening.shutDown()
        unlink(offer.path)
    }

    /// Greets, then answers each request until the client closes or falls silent.
    private static func serve(_ connection: MessageSocket, offer: LocalHandoff.Offer, tus: TusEndpoint) {
        guard connection.send(offer.greeting) else { return }
        while let (message, file) = connection.receive(waiting: .seconds(60)) {
            let reply: LocalHandoff.Reply
            if file < 0 {
                reply = .refused(status: 400, message: "a request comes with the file's descriptor")
            } else if let request = LocalHandoff.Create(message: message) {
                reply = tus.create(request, from: file)
            } else if let request = LocalHandoff.Append(message: message) {
                reply = tus.append(request, from: file)
            } else {
                reply = .refused(status: 400, message: "expected 'create <length> <metadata>' or 'append <id> <offset> <length>'")
            }
            if file >= 0 { close(file) }
            guard connection.send(reply.message) else { return }
        }
    }
}
