import Basics
@testable import Engine
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import XCTest

/// The engine's end of the same-machine handoff: files handed over as open descriptors on its
/// Unix socket, and every way such a request is refused.
final class HandoffTests: XCTestCase {
    private let http = HTTPClient()
    private let tus = [(name: "Tus-Resumable", value: "1.0.0")]

    private func offer(_ server: EngineTestServer, headers: [(name: String, value: String)] = []) async throws -> LocalHandoff.Offer? {
        let response = try await http.send(HTTPRequest(method: "OPTIONS", url: server.endpoint, headers: tus + headers))
        XCTAssertEqual(response.status, 204)
        return LocalHandoff.Offer(header: response.headers[LocalHandoff.header])
    }

    /// The offer of an engine that must make one.
    private func offered(_ server: EngineTestServer) async throws -> LocalHandoff.Offer {
        let offered = try await offer(server)
        return try XCTUnwrap(offered, "the engine offers no handoff")
    }

    private func create(_ server: EngineTestServer, length: Int) async throws -> String {
        let response = try await http.send(HTTPRequest(method: "POST", url: server.endpoint, headers: tus + [("Upload-Length", String(length))]))
        XCTAssertEqual(response.status, 201)
        return try XCTUnwrap(response.headers["Location"])
    }

    /// A connection past the greeting, which must carry the offer's token.
    private func connect(_ offer: LocalHandoff.Offer) throws -> MessageSocket {
        let socket = try XCTUnwrap(MessageSocket.connect(offer.path))
        XCTAssertEqual(socket.receive(waiting: .seconds(5))?.text, offer.greeting)
        return socket
    }

    private func send(_ socket: MessageSocket, _ message: String, file: Int32) -> LocalHandoff.Reply? {
        XCTAssertTrue(socket.send(message, file: file))
        return socket.receive(waiting: .seconds(10)).flatMap { LocalHandoff.Reply(message: $0.text) }
    }

    func testAHandedOverFileCompletesItsUploadByteForByte() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let offer = try await offered(server)
        XCTAssertEqual(offer.path, RealPath.of(server.data.path).map { $0 + "/handoff.sock" })
        var info = stat()
        XCTAssertEqual(lstat(offer.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "only this user may hand files over")
        let folder = try TemporaryDirectory(prefix: "handoff")
        defer { folder.remove() }
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = try folder.write("big.bin", data: bytes)
        let url = try await create(server, length: bytes.count)
        let id = try XCTUnwrap(url.split(separator: "/").last.map(String.init))
        let file = open(folder.path + "/big.bin", O_RDONLY)
        defer { close(file) }
        let socket = try connect(offer)
        // In two parts on one connection: the second continues at the offset the first left.
        XCTAssertEqual(send(socket, LocalHandoff.Append(id: id, offset: 0, length: 1_000_000).message, file: file), .stored(offset: 1_000_000))
        XCTAssertEqual(send(socket, LocalHandoff.Append(id: id, offset: 1_000_000, length: 2_000_000).message, file: file), .stored(offset: 3_000_000))
        XCTAssertEqual(try server.storedBytes(of: url), bytes)
        let head = try await http.send(HTTPRequest(method: "HEAD", url: url, headers: tus))
        XCTAssertEqual(head.headers["Upload-Offset"], "3000000")
        XCTAssertFalse(server.requests.contains { $0.hasPrefix("PATCH") }, "\(server.requests)")
    }

    func testAnUploadIsCreatedWithItsFileInOneMessage() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let offer = try await offered(server)
        let folder = try TemporaryDirectory(prefix: "handoff")
        defer { folder.remove() }
        let bytes = Data((0..<500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        _ = try folder.write("photo.png", data: bytes)
        _ = try folder.write("empty.bin", "")
        let file = open(folder.path + "/photo.png", O_RDONLY), empty = open(folder.path + "/empty.bin", O_RDONLY)
        defer { close(file); close(empty) }
        let socket = try connect(offer)
        let reply = send(socket, LocalHandoff.Create(length: 500_000, metadata: ["filename": "photo.png", "filetype": "image/png"]).message, file: file)
        guard case .created(let location, let offset)? = reply else { return XCTFail("\(String(describing: reply))") }
        XCTAssertEqual(offset, 500_000)
        XCTAssertTrue(location.hasPrefix("/resumable/files/"), location)
        let url = "http://127.0.0.1:\(server.port)" + location
        XCTAssertEqual(try server.storedBytes(of: url), bytes)
        let head = try await http.send(HTTPRequest(method: "HEAD", url: url, headers: tus))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Upload-Length"], "500000")
        XCTAssertEqual(head.headers["Upload-Metadata"].flatMap(TusProtocol.parseMetadata), ["filename": "photo.png", "filetype": "image/png"])
        guard case .created(_, 0)? = send(socket, "create 0 ", file: empty) else { return XCTFail("an empty file makes a finished upload") }
        // A creation is refused as its POST would be: too large, bad metadata, a file shorter than said.
        func status(_ message: String) -> Int? {
            if case .refused(let status, _)? = send(socket, message, file: file) { return status }
            return nil
        }
        XCTAssertEqual(status("create 99999999999999999 "), 413)
        XCTAssertEqual(status("create 10 filename !!notbase64"), 400)
        XCTAssertEqual(status("create 600000 "), 400, "the file has 500,000 bytes")
        XCTAssertEqual(server.createdUploads(), 2)
    }

    func testAnEngineWithAnAuthKeyTakesCreationsOnlyForItsAssemblies() async throws {
        let server = try EngineTestServer(credentials: ("key", "secret-0123456789"), trustProxy: false)
        defer { server.stop() }
        let socket = try connect(try await offered(server))
        let folder = try TemporaryDirectory(prefix: "handoff")
        defer { folder.remove() }
        _ = try folder.write("a.bin", "abc")
        let file = open(folder.path + "/a.bin", O_RDONLY)
        defer { close(file) }
        XCTAssertEqual(send(socket, "create 3 filename YS5iaW4=", file: file).map { if case .refused(403, _) = $0 { true } else { false } }, true)
        XCTAssertEqual(server.createdUploads(), 0)
    }

    func testRefusalsSayWhyAsAPatchWould() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let offer = try await offered(server)
        let folder = try TemporaryDirectory(prefix: "handoff")
        defer { folder.remove() }
        _ = try folder.write("ten.bin", "0123456789")
        XCTAssertEqual(mkfifo(folder.path + "/fifo", 0o600), 0)
        let url = try await create(server, length: 10)
        let id = try XCTUnwrap(url.split(separator: "/").last.map(String.init))
        let file = open(folder.path + "/ten.bin", O_RDONLY)
        let fifo = open(folder.path + "/fifo", O_RDWR)
        defer { close(file); close(fifo) }
        let socket = try connect(offer)
        func status(_ message: String, _ descriptor: Int32) -> Int? {
            if case .refused(let status, _)? = send(socket, message, file: descriptor) { return status }
            return nil
        }
        XCTAssertEqual(status("append \(id) 3 7", file), 409, "the upload is at 0")
        XCTAssertEqual(status("append \(id) 0 11", file), 413, "past Upload-Length")
        XCTAssertEqual(status("append \(id) 0 10", fifo), 400, "not a regular file")
        let writeOnly = open(folder.path + "/ten.bin", O_WRONLY), pathOnly = open(folder.path + "/ten.bin", O_RDONLY | 0o10000000)  // O_PATH
        defer { close(writeOnly); close(pathOnly) }
        XCTAssertEqual(status("append \(id) 0 10", writeOnly), 400, "not open for reading")
        XCTAssertEqual(status("append \(id) 0 10", pathOnly), 400, "not open for reading")
        XCTAssertEqual(status("append \(id) 0 10", -1), 400, "no descriptor came along")
        XCTAssertEqual(status("append 00000000000000000000000000000000 0 10", file), 404)
        XCTAssertEqual(status("append ../uploads/x 0 10", file), 404)
        XCTAssertEqual(status("PATCH /resumable/files/\(id)", file), 400)
        XCTAssertEqual(status("append \(id) -1 10", file), 400)
        _ = try folder.write("short.bin", "01234")
        let short = open(folder.path + "/short.bin", O_RDONLY)
        defer { close(short) }
        XCTAssertEqual(status("append \(id) 0 10", short), 400, "the file is shorter than asked")
        // Nothing of those reached the upload; a proper request still goes through.
        XCTAssertEqual(send(socket, "append \(id) 0 10", file: file), .stored(offset: 10))
        XCTAssertEqual(try server.storedBytes(of: url), Data("0123456789".utf8))
        XCTAssertEqual(status("append \(id) 0 10", file), 409, "finished: no byte more")
    }

    func testAnEngineStoppedMidCopyKeepsTheBytesItCopied() async throws {
        let data = try TemporaryDirectory(prefix: "engine")
        defer { data.remove() }
        var server = try EngineTestServer(data: data, trustProxy: false)
        let offer = try await offered(server)
        let folder = try TemporaryDirectory(prefix: "handoff")
        defer { folder.remove() }
        // 2 GiB of holes: slow enough to copy that the stop comes first, or at worst just after.
        let path = try folder.write("big.bin", "")
        XCTAssertEqual(truncate(path, 2 << 30), 0)
        let url = try await create(server, length: 2 << 30)
        let id = try XCTUnwrap(url.split(separator: "/").last.map(String.init))
        let file = open(path, O_RDONLY)
        defer { close(file) }
        let socket = try connect(offer)
        XCTAssertTrue(socket.send(LocalHandoff.Append(id: id, offset: 0, length: 2 << 30).message, file: file))
        // Stopped once the copy is under way.
        let copying = await eventually {
            var info = stat()
            return stat(server.data.path + "/uploads/\(id).bin", &info) == 0 && info.st_size > 0
        }
        XCTAssertTrue(copying, "the engine copies the file handed over")
        server.stop(keepData: true)
        // Restarted, the engine holds what it had copied, no more and no less than its file.
        server = try EngineTestServer(data: data, trustProxy: false)
        defer { server.stop(keepData: true) }
        let head = try await http.send(HTTPRequest(method: "HEAD", url: server.endpoint + id, headers: tus))
        let offset = try XCTUnwrap(head.headers["Upload-Offset"].flatMap { Int64($0) })
        XCTAssertGreaterThan(offset, 0, "the bytes copied before the stop are kept")
        XCTAssertLessThan(offset, 2 << 30, "the stop came during the copy, which it cut")
        var info = stat()
        XCTAssertEqual(stat(server.data.path + "/uploads/\(id).bin", &info), 0)
        XCTAssertEqual(Int64(info.st_size), offset)
    }

    func testOfferedOnlyToClientsThatReachTheEngineDirectly() async throws {
        let direct = try EngineTestServer(trustProxy: false)
        let viaProxy = try await offer(direct, headers: [("X-Forwarded-For", "203.0.113.9")])
        XCTAssertNil(viaProxy, "a client behind a proxy may be on another machine")
        // An engine that trusts a proxy in front offers it to no one.
        let proxied = try EngineTestServer()
        defer { proxied.stop() }
        let none = try await offer(proxied)
        XCTAssertNil(none)
        XCTAssertFalse(FileManager.default.fileExists(atPath: proxied.data.path + "/handoff.sock"))
        // Stopped, the engine takes its socket away.
        let offered = try await offer(direct)
        direct.stop(keepData: true)
        let path = try XCTUnwrap(offered).path
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        direct.data.remove()
    }

    func testAConnectionPastTheCapIsClosedAndLogged() async throws {
        let server = try EngineTestServer(trustProxy: false)
        defer { server.stop() }
        let offer = try await offered(server)
        var served = try (0..<HandoffServer.maxConnections).map { _ in try connect(offer) }
        let refused = try XCTUnwrap(MessageSocket.connect(offer.path))
        XCTAssertNil(refused.receive(waiting: .seconds(20)), "closed without a greeting: its client sends over HTTP")
        let logged = await eventually { server.requests.contains { $0.hasPrefix("HANDOFF refused: \(HandoffServer.maxConnections) connections") } }
        XCTAssertTrue(logged, "\(server.requests)")
        // One served connection goes: its thread is free for the next.
        served.removeLast()
        let next = await firstAnswer {
            MessageSocket.connect(offer.path).flatMap { $0.receive(waiting: .seconds(5))?.text == offer.greeting ? $0 : nil }
        }
        XCTAssertNotNil(next, "a connection is served again once one has gone")
        served.removeAll()
    }
}
