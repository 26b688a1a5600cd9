import Basics
@testable import APIClients
import EngineTestSupport
import Foundation
import HTTPClient
import Synchronization
import TestSupport
import Wire
import XCTest

/// Uploads to a local engine that offers the same-machine handoff: files go as open descriptors,
/// and whatever goes wrong with the socket, their bytes go over HTTP instead.
final class HandoffUploadTests: XCTestCase {
    private func outcomes(_ paths: [String], to server: EngineTestServer, fixture: UploadFixture, configure: (inout UploadOptions) -> Void = { _ in })
        async throws -> [Result<UploadResult, any Error>] {
        var options = UploadOptions(retryDelays: [.zero, .milliseconds(50)], parallel: 4, stateDirectory: fixture.state.path)
        // Bytes that go over HTTP go in a PATCH, which the engine's log shows.
        options.creationWithUploadLimit = 0
        configure(&options)
        let uploader = TusUploader(endpoint: server.endpoint, options: options, http: fixture.http)
        return try await uploader.upload(paths.map { UploadFile(path: $0, metadata: ["filename": "f.bin"]) }) { _ in }
    }

    private func upload(_ paths: [String], to server: EngineTestServer, fixture: UploadFixture, configure: (inout UploadOptions) -> Void = { _ in })
        async throws -> [UploadResult] {
        try await outcomes(paths, to: server, fixture: fixture, configure: configure).map { try $0.get() }
    }

    /// The handoff the engine offers in its tus `OPTIONS` answer.
    private func handoffOffer(of server: EngineTestServer) async throws -> LocalHandoff.Offer {
        let offered = try await HTTPClient().send(HTTPRequest(method: "OPTIONS", url: server.endpoint, headers: [("Tus-Resumable", "1.0.0")]))
        return try XCTUnwrap(LocalHandoff.Offer(header: offered.headers[LocalHandoff.header]))
    }

    private func patches(_ server: EngineTestServer) -> Int { server.requests.filter { $0.hasPrefix("PATCH") }.count }

    /// Whether the engine logs `count` PATCH requests: a line is logged once its answer is sent,
    /// so it may come just after the client has the answer.
    private func logsPatches(_ server: EngineTestServer, _ count: Int) async -> Bool {
        await eventually(within: .seconds(5)) { patches(server) == count }
    }

    func testFilesGoToALocalEngineAsOpenDescriptors() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let fixture = try UploadFixture()
        let files = try [fixture.file("a.bin", size: 3_000_000), fixture.file("b.bin", size: 70_000), fixture.file("empty.bin", size: 0),
                         fixture.file("large.bin", size: 6_000_000)]
        let results = try await upload(files.map(\.path), to: server, fixture: fixture) { $0.creationWithUploadLimit = 4 << 20 }
        for (result, file) in zip(results, files) {
            XCTAssertEqual(try server.storedBytes(of: result.url), file.data)
        }
        XCTAssertEqual(patches(server), 0, "no byte went over HTTP: \(server.requests)")
        // The small ones are each made in one message; the large one over HTTP first, so that its
        // resume record is kept while its bytes are copied.
        XCTAssertEqual(server.requests.filter { $0.hasPrefix("POST /resumable") }.count, 1, "\(server.requests)")
    }

    func testTheBatchesOfARunShareTheirConnectionsToTheEngine() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let connections = try CountingRelay(server)
        defer { connections.stop() }
        let fixture = try UploadFixture()
        let files = try (0..<6).map { try fixture.file("f\($0).bin", size: 10_000 + $0) }
        var options = UploadOptions(retryDelays: [.zero], parallel: 1, stateDirectory: fixture.state.path)
        options.creationWithUploadLimit = 4 << 20
        // Three batches of a run (one capability cache), each as an Assembly's uploads go.
        let run = TusCapabilityCache()
        for first in stride(from: 0, to: files.count, by: 2) {
            let batch = Array(files[first..<first + 2])
            let uploader = TusUploader(endpoint: server.endpoint, options: options, http: fixture.http, known: run)
            let results = try await uploader.upload(batch.map { UploadFile(path: $0.path, metadata: ["filename": "f.bin"]) }) { _ in }
            for (result, file) in zip(results, batch) { XCTAssertEqual(try server.storedBytes(of: result.get().url), file.data) }
        }
        XCTAssertEqual(connections.count, 1, "one connection, greeted once, served the run's three batches")
        XCTAssertEqual(server.requests.filter { $0.hasPrefix("POST /resumable") || $0.hasPrefix("PATCH") }, [], "every byte was handed over")
        // Batches of separate runs each greet the engine.
        for first in stride(from: 0, to: files.count, by: 3) {
            let batch = Array(files[first..<first + 3])
            let uploader = TusUploader(endpoint: server.endpoint, options: options, http: fixture.http)
            _ = try await uploader.upload(batch.map { UploadFile(path: $0.path, metadata: ["filename": "f.bin"]) }) { _ in }
        }
        XCTAssertEqual(connections.count, 3)
    }

    func testAConnectionIdleTooLongIsClosedAndANewOneGreeted() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let connections = try CountingRelay(server)
        defer { connections.stop() }
        let fixture = try UploadFixture()
        let file = try fixture.file("a.bin", size: 1000)
        let offer = try await handoffOffer(of: server)
        // Kept for half a minute: the second request, however late a loaded machine sends it, reuses the connection.
        let keeping = try XCTUnwrap(HandoffClient(offer: offer, endpoint: server.endpoint, keepIdle: .seconds(30)))
        _ = try await keeping.create(at: server.endpoint, path: file.path, length: 1000, metadata: [:])
        _ = try await keeping.create(at: server.endpoint, path: file.path, length: 1000, metadata: [:])
        XCTAssertEqual(connections.count, 1, "a connection just used is used again")
        // Kept for 50 ms: once its connection has been idle longer (it is then closed, with no
        // file to send), the next request is greeted on a new one. The first client's may stay.
        let brief = try XCTUnwrap(HandoffClient(offer: offer, endpoint: server.endpoint, keepIdle: .milliseconds(50)))
        _ = try await brief.create(at: server.endpoint, path: file.path, length: 1000, metadata: [:])
        XCTAssertEqual(connections.count, 2)
        let idleClosed = await eventually(within: .seconds(20)) { connections.open <= 1 }
        XCTAssertTrue(idleClosed, "one kept open, with no file to send, longer than that is closed")
        let made = try await brief.create(at: server.endpoint, path: file.path, length: 1000, metadata: [:])
        XCTAssertEqual(made?.offset, 1000)
        XCTAssertEqual(connections.count, 3, "one idle longer than kept is not used")
        withExtendedLifetime(keeping) {}
        let closed = await eventually(within: .seconds(20)) { connections.open <= 1 }
        XCTAssertTrue(closed, "\(connections.open) connections still open")
    }

    func testBytesGoOverHTTPWhenTheHandoffIsOffOrAChecksumIsAskedFor() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let fixture = try UploadFixture()
        let file = try fixture.file("a.bin", size: 3_000_000)
        _ = try await upload([file.path], to: server, fixture: fixture) { $0.handoff = false; $0.stateDirectory = nil }
        let first = await logsPatches(server, 1)
        XCTAssertTrue(first, "\(server.requests)")
        let checked = try await upload([file.path], to: server, fixture: fixture) { $0.checksum = .algorithm(.sha256); $0.stateDirectory = nil }
        XCTAssertEqual(try server.storedBytes(of: checked[0].url), file.data)
        let more = await eventually(within: .seconds(5)) { patches(server) > 1 }
        XCTAssertTrue(more, "a checksum asked for by name is sent, with the bytes, over HTTP: \(server.requests)")
    }

    func testASocketThatIsGoneSendsTheBytesOverHTTP() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        // Still offered in OPTIONS, but nothing listens there any more.
        XCTAssertEqual(unlink(server.data.path + "/handoff.sock"), 0)
        let fixture = try UploadFixture()
        let file = try fixture.file("a.bin", size: 3_000_000)
        let results = try await upload([file.path], to: server, fixture: fixture)
        XCTAssertEqual(try server.storedBytes(of: results[0].url), file.data)
        let overHTTP = await logsPatches(server, 1)
        XCTAssertTrue(overHTTP, "\(server.requests)")
    }

    func testAnImpostorAtTheOfferedPathIsHandedNoFile() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        // Another program listens where the engine's socket was, and greets without its token.
        let path = server.data.path + "/handoff.sock"
        XCTAssertEqual(unlink(path), 0)
        let impostor = try MessageSocket.listen(path)
        let handed = Atomic(0)
        let thread = Thread {
            while let connection = impostor.accept() {
                connection.send(LocalHandoff.greetingPrefix + "0123abcd")
                while let (_, file) = connection.receive(waiting: .seconds(2)) {
                    if file >= 0 { handed.add(1, ordering: .relaxed); close(file) }
                }
            }
        }
        thread.start()
        defer { impostor.shutDown() }
        let fixture = try UploadFixture()
        let file = try fixture.file("a.bin", size: 2_000_000)
        let results = try await upload([file.path], to: server, fixture: fixture)
        XCTAssertEqual(try server.storedBytes(of: results[0].url), file.data)
        XCTAssertEqual(handed.load(ordering: .relaxed), 0, "no descriptor went to a socket that did not greet with the token")
        let overHTTP = await logsPatches(server, 1)
        XCTAssertTrue(overHTTP, "\(server.requests)")
    }

    func testAnEngineClaimingBytesItWasNotSentIsNotBelieved() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        // A socket that greets with the right token, then says it holds more than it was sent.
        let offer = try await handoffOffer(of: server)
        XCTAssertEqual(unlink(offer.path), 0)
        let liar = try MessageSocket.listen(offer.path)
        Thread {
            while let connection = liar.accept() {
                connection.send(offer.greeting)
                while let (message, file) = connection.receive(waiting: .seconds(2)) {
                    if file >= 0 { close(file) }
                    connection.send(message.hasPrefix("create") ? "created /resumable/files/0123456789abcdef0123456789abcdef 99999999" : "ok 99999999")
                }
            }
        }.start()
        defer { liar.shutDown() }
        let fixture = try UploadFixture()
        let small = try fixture.file("small.bin", size: 1000), large = try fixture.file("large.bin", size: 5_000_000)
        let results = try await outcomes([small.path, large.path], to: server, fixture: fixture) { $0.creationWithUploadLimit = 4 << 20 }
        for result in results {
            XCTAssertThrowsError(try result.get()) { XCTAssertTrue("\($0)".contains("the engine holds 99999999"), "\($0)") }
        }
    }

    func testOnlyAnEndpointOnThisMachineIsHandedFiles() {
        let offer = LocalHandoff.Offer(path: "/tmp/x.sock", token: "ab")
        for endpoint in ["http://127.0.0.1:8787/resumable/files/", "http://localhost:1/files/", "http://[::1]:8787/files/"] {
            XCTAssertNotNil(HandoffClient(offer: offer, endpoint: endpoint), endpoint)
        }
        // A server elsewhere that offers a socket path would have this machine's client hand a
        // local program its files: never taken.
        for endpoint in ["https://api2.transloadit.com/resumable/files/", "http://10.0.0.8:8787/files/", "http://127.0.0.2/files/",
                         "http://127.0.0.1.example.com/files/", "http://localhost.evil.test/files/"] {
            XCTAssertNil(HandoffClient(offer: offer, endpoint: endpoint), endpoint)
        }
        XCTAssertNil(HandoffClient(offer: nil, endpoint: "http://127.0.0.1:8787/files/"))
    }
}

/// Moves an engine's handoff socket aside and relays every connection made at its offered path
/// to it, descriptors included, counting the connections.
private final class CountingRelay: Sendable {
    private let listening: MessageSocket
    private let accepted = Atomic(0)
    private let closed = Atomic(0)

    /// Connections made so far.
    var count: Int { accepted.load(ordering: .relaxed) }
    /// Connections the client has not closed.
    var open: Int { count - closed.load(ordering: .relaxed) }

    init(_ server: EngineTestServer) throws {
        let path = server.data.path + "/handoff.sock", moved = server.data.path + "/engine.sock"
        XCTAssertEqual(rename(path, moved), 0)
        listening = try MessageSocket.listen(path)
        Thread { [self] in
            while let client = listening.accept() {
                accepted.add(1, ordering: .relaxed)
                Thread { [self] in
                    Self.relay(client, to: moved)
                    closed.add(1, ordering: .relaxed)
                }.start()
            }
        }.start()
    }

    func stop() { listening.shutDown() }

    private static func relay(_ client: MessageSocket, to path: String) {
        guard let engine = MessageSocket.connect(path), let (greeting, _) = engine.receive(waiting: .seconds(5)), client.send(greeting) else { return }
        while let (message, file) = client.receive(capacity: 64 << 10, waiting: .seconds(5)) {
            defer { if file >= 0 { close(file) } }
            guard engine.send(message, file: file), let (reply, _) = engine.receive(waiting: .seconds(5)), client.send(reply) else { return }
        }
    }
}
