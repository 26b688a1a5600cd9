import Basics
import Crypto
import Foundation
import Synchronization
import Wire

/// The engine's end of the same-machine handoff (`LocalHandoff`): a Unix socket in the data
/// folder, readable by this user only, where clients on this machine send each upload's file as
/// an open descriptor. Connections are served by a pool of at most `maxConnections` threads, one
/// each; one more is closed as it comes (its client sends over HTTP), and one silent for a
/// minute is closed.
final class HandoffServer: Sendable {
    /// What the tus `OPTIONS` answer offers.
    let offer: LocalHandoff.Offer
    private let listening: MessageSocket
    private let connections = Mutex(0)
    /// The threads connections are served on, one each.
    private let threads = BlockingPool("handoff", threads: HandoffServer.maxConnections)
    /// Requests being answered, which `stop` lets end (a copy saves what it copied).
    private let busy = Drain()
    private let stopping = Atomic(false)
    /// Connections served at once; one more is closed as it comes (its client uses HTTP).
    static let maxConnections = 64

    /// Listens at `folder/handoff.sock`; throws when the socket cannot be made there (a path too
    /// long for a socket address, another file there, a file system without sockets).
    init(folder: String, tus: TusEndpoint, log: (@Sendable (String) -> Void)?) throws(FileError) {
        guard let real = RealPath.of(folder) else { throw FileError(path: folder, operation: "resolve", code: errno) }
        listening = try MessageSocket.listen(real + "/handoff.sock")
        offer = LocalHandoff.Offer(path: real + "/handoff.sock", token: RandomID.hex32())
        DedicatedThread.start("handoff-accept") { [self] in acceptConnections(tus, log: log) }
    }

    /// Serves each connection on a thread of the pool, until `stop`.
    private func acceptConnections(_ tus: TusEndpoint, log: (@Sendable (String) -> Void)?) {
        while let connection = listening.accept() {
            let admitted = connections.withLock { count in
                guard count < Self.maxConnections else { return false }
                count += 1
                return true
            }
            guard admitted else {
                // Closed as it goes: never a connection waiting for a thread while its client waits for a greeting.
                log?("HANDOFF refused: \(Self.maxConnections) connections are served at once; the client sends over HTTP")
                continue
            }
            threads.submit { [self] in
                serve(connection, tus: tus, log: log)
                connections.withLock { $0 -= 1 }
            }
        }
    }

    /// Stops taking connections and removes the socket; a copy under way stops at its next piece
    /// and saves the bytes it copied (waited for up to 10 s), as a body cut off by a stop would.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        listening.shutDown()
        unlink(offer.path)
        busy.wait(atMost: .seconds(10))
    }

    /// Greets, then answers each request until the client closes or falls silent; each is
    /// logged as a request is (`HANDOFF create /resumable/files/ID 201 3ms`).
    private func serve(_ connection: MessageSocket, tus: TusEndpoint, log: (@Sendable (String) -> Void)?) {
        guard connection.send(offer.greeting) else { return }
        // A client killed mid-copy is not copied for to the end, nor is any once the engine stops.
        let gone = { [self] in connection.peerIsGone || stopping.load(ordering: .relaxed) }
        // Room for the metadata a creating POST's header could carry.
        while !stopping.load(ordering: .relaxed), let (message, file) = connection.receive(capacity: 64 << 10, waiting: .seconds(60)) {
            busy.enter()
            defer { busy.leave() }
            // Arrived as the engine stops: nothing is begun that the stop would not wait for.
            guard !stopping.load(ordering: .relaxed) else {
                if file >= 0 { close(file) }
                connection.send(LocalHandoff.Reply.refused(status: 503, message: "the engine is stopping").message)
                return
            }
            let started = ContinuousClock.now
            var expected: Int64 = 0
            let reply: LocalHandoff.Reply
            var line: String
            if file < 0 {
                reply = .refused(status: 400, message: "a request comes with the file's descriptor")
                line = "HANDOFF ?"
            } else if let request = LocalHandoff.Create(message: message) {
                reply = tus.create(request, from: file, stop: gone)
                line = "HANDOFF create"
                expected = request.length
            } else if let request = LocalHandoff.Append(message: message) {
                reply = tus.append(request, from: file, stop: gone)
                line = "HANDOFF append \(LocalEngine.tusPath)\(request.id.printable)"
            } else {
                reply = .refused(status: 400, message: "expected 'create <length> <metadata>' or 'append <id> <offset> <length>'")
                line = "HANDOFF ?"
            }
            if file >= 0 { close(file) }
            switch reply {
            case .created(let location, let offset):
                // Made but cut short (the client goes on with it): logged as the failure it was.
                line += offset == expected ? " \(location) 201" : " \(location) 500 (\(offset) of \(expected) bytes)"
            case .stored: line += " 204"
            case .refused(let status, _): line += " \(status)"
            }
            log?(line + " \((ContinuousClock.now - started).inMilliseconds)ms")
            guard connection.send(reply.message) else { return }
        }
    }
}
