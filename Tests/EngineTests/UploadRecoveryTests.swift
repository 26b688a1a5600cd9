import Basics
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import XCTest

/// The engine's uploads across what real networks and machines do: a client that reconnects
/// while its dead connection stays half-open, and `kill -9` in the middle of a body.
final class UploadRecoveryTests: XCTestCase {
    private let http = HTTPClient()

    private func create(_ base: String, headers: [(name: String, value: String)]) async throws -> String {
        let response = try await http.send(HTTPRequest(method: "POST", url: base, headers: [("Tus-Resumable", "1.0.0")] + headers))
        XCTAssertEqual(response.status, 201)
        return try XCTUnwrap(response.headers["Location"]?.split(separator: "/").last.map(String.init))
    }

    private func head(_ url: String) async throws -> (status: Int, offset: Int64?) {
        let response = try await http.send(HTTPRequest(method: "HEAD", url: url, headers: [("Tus-Resumable", "1.0.0")]))
        return (response.status, response.headers["Upload-Offset"].flatMap { Int64($0) })
    }

    private func patch(_ url: String, offset: Int64, _ body: Data, length: Int64? = nil) async throws -> Int {
        var headers: [(name: String, value: String)] = [("Tus-Resumable", "1.0.0"), ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", String(offset))]
        if let length { headers.append(("Upload-Length", String(length))) }
        return try await http.send(HTTPRequest(method: "PATCH", url: url, headers: headers, body: .data(body))).status
    }

    private func content(_ size: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    func testAReconnectingClientGetsItsUploadBackAtOnce() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let data = content(12 << 20)
        let id = try await create(server.endpoint, headers: [("Upload-Length", String(data.count))])
        // The dead connection: a PATCH whose client went away after 5 MiB, leaving the socket half-open.
        let dead = try RawConnection(port: server.port)
        dead.send("PATCH /resumable/files/\(id) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTus-Resumable: 1.0.0\r\n"
            + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(data.count)\r\n\r\n")
        let sent = 5 << 20
        XCTAssertTrue(dead.send(data.prefix(sent)))
        let arrived = await eventually(within: .seconds(10)) { server.largestStoredSize() >= sent }
        XCTAssertTrue(arrived, "the dead connection's bytes reached the upload")
        let started = ContinuousClock.now
        let status = try await head(server.endpoint + id)
        XCTAssertEqual(status.status, 200, "not locked out")
        XCTAssertEqual(status.offset, Int64(sent), "the true offset: what the dead request received")
        // 200 (a lock-out answers 423) and the true offset prove the release; the bound only
        // guards against a wait far beyond the release's own (5 s).
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20), "answered without waiting out more than the release")
        let rest = try await patch(server.endpoint + id, offset: Int64(sent), data.dropFirst(sent))
        XCTAssertEqual(rest, 204)
        XCTAssertEqual(try server.storedBytes(of: id), data)
    }

    /// `pipeline serve` as its own process, on a data folder that outlives it.
    private func serve(_ data: TemporaryDirectory) throws -> ServerProcess {
        try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path, "--quiet"])
    }

    func testAKilledEngineKeepsNoUnrecordedBytesAndEveryUploadFinishesByteIdentical() async throws {
        let data = try TemporaryDirectory(prefix: "engine-crash")
        defer { data.remove() }
        var engine = try serve(data)
        defer { engine.stop() }
        let body = content(6 << 20)
        for moment in 0..<5 {
            // A chunked PATCH with a deferred length, killed at a random moment of its body.
            let base = engine.url("/resumable/files/")
            let id = try await create(base, headers: [("Upload-Defer-Length", "1")])
            let connection = try RawConnection(port: engine.port)
            connection.send("PATCH /resumable/files/\(id) HTTP/1.1\r\nHost: 127.0.0.1:\(engine.port)\r\nTus-Resumable: 1.0.0\r\n"
                + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nTransfer-Encoding: chunked\r\n\r\n")
            let cut = Int.random(in: 1..<body.count)
            var position = 0
            while position < cut {
                let piece = body[position..<min(cut, position + 65536)]
                connection.send(String(piece.count, radix: 16) + "\r\n")
                connection.send(piece)
                connection.send("\r\n")
                position += piece.count
            }
            // The crash comes once the engine holds a random part of what was sent (none, some, all).
            let held = Int64.random(in: 0...Int64(cut))
            await eventually { ((try? FileManager.default.attributesOfItem(atPath: data.path + "/uploads/\(id).bin")[.size] as? Int64) ?? 0) >= held }
            engine.crash()
            engine = try serve(data)
            // The engine makes an upload's file agree with its record when the upload is first asked for.
            let after = try await head(engine.url("/resumable/files/") + id)
            let file = data.path + "/uploads/\(id).bin"
            let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? -1
            XCTAssertEqual(after.status, 200, "moment \(moment)")
            XCTAssertEqual(after.offset, size, "moment \(moment): the file holds exactly the recorded bytes")
            let offset = after.offset ?? 0
            let status = try await patch(engine.url("/resumable/files/") + id, offset: offset, body.dropFirst(Int(offset)), length: Int64(body.count))
            XCTAssertEqual(status, 204, "moment \(moment)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), body, "moment \(moment): byte-identical")
        }
    }

    func testAShortDataFileMovesTheOffsetBackAndAnAnsweredAssemblySurvives() async throws {
        let data = try TemporaryDirectory(prefix: "engine-crash")
        defer { data.remove() }
        var engine = try serve(data)
        defer { engine.stop() }
        let body = content(1 << 20)
        let id = try await create(engine.url("/resumable/files/"), headers: [("Upload-Length", String(body.count))])
        let first = try await patch(engine.url("/resumable/files/") + id, offset: 0, body.prefix(600_000))
        XCTAssertEqual(first, 204)
        // An Assembly answered 200, then the engine killed at once.
        let params = #"{"steps":{"hash":{"robot":"/file/hash","use":":original"}}}"#
        let form = "params=" + (params.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&tus_num_expected_upload_files=1"
        let created = try await http.send(HTTPRequest(method: "POST", url: engine.url("/assemblies"), headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(form.utf8))))
        XCTAssertEqual(created.status, 200)
        let assembly = try XCTUnwrap(try JSONValue.parse(created.body)["assembly_id"]?.stringValue)
        engine.crash()
        // The machine lost the data's last pages: the file is shorter than its record.
        XCTAssertEqual(truncate(data.path + "/uploads/\(id).bin", 400_000), 0)
        engine = try serve(data)
        let after = try await head(engine.url("/resumable/files/") + id)
        XCTAssertEqual(after.offset, 400_000, "the offset follows the bytes that are there")
        let rest = try await patch(engine.url("/resumable/files/") + id, offset: 400_000, body.dropFirst(400_000))
        XCTAssertEqual(rest, 204)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: data.path + "/uploads/\(id).bin")), body)
        let status = try await http.send(HTTPRequest(method: "GET", url: engine.url("/assemblies/" + assembly)))
        XCTAssertEqual(status.status, 200, "the acknowledged Assembly survived the kill")
    }
}
