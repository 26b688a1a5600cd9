import Wire
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Client
import XCTest

/// The engine's tus server, request by request: every error case of the protocol.
final class TusServerTests: XCTestCase {
    private let http = HTTPClient()

    private func send(_ method: String, _ url: String, _ headers: [(name: String, value: String)] = [], body: Data? = nil) async throws -> HTTPResponse {
        try await http.send(HTTPRequest(method: method, url: url, headers: headers, body: body.map { .data($0) } ?? .none))
    }

    private let tus = [("Tus-Resumable", "1.0.0")]
    private let octets = ("Content-Type", "application/offset+octet-stream")

    private func create(_ server: EngineTestServer, length: Int, metadata: String? = nil) async throws -> String {
        var headers = tus + [("Upload-Length", String(length))]
        if let metadata { headers.append(("Upload-Metadata", metadata)) }
        let response = try await send("POST", server.endpoint, headers)
        XCTAssertEqual(response.status, 201)
        return try XCTUnwrap(response.headers["Location"])
    }

    func testOptionsAdvertiseTheExtensions() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let response = try await send("OPTIONS", server.endpoint)
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(response.headers["Tus-Extension"], "creation,creation-with-upload,creation-defer-length,termination,expiration,checksum,checksum-trailer")
        XCTAssertEqual(response.headers["Tus-Checksum-Algorithm"], "crc32,sha1,sha256,md5")
        XCTAssertNotNil(response.headers["Tus-Max-Size"])
    }

    func testProtocolErrors() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let url = try await create(server, length: 10, metadata: "filename Zi5iaW4=")
        let cases: [(String, String, [(name: String, value: String)], Data?, Int)] = [
            ("POST", server.endpoint, [("Tus-Resumable", "0.2.2"), ("Upload-Length", "5")], nil, 412),
            ("POST", server.endpoint, tus, nil, 400),
            ("POST", server.endpoint, tus + [("Upload-Length", "-1")], nil, 400),
            ("POST", server.endpoint, tus + [("Upload-Length", "999999999999999999")], nil, 413),
            ("POST", server.endpoint, tus + [("Upload-Length", "5"), ("Upload-Metadata", "name !!notbase64")], nil, 400),
            ("POST", server.endpoint, tus + [("Upload-Length", "5"), ("Upload-Metadata", "name " + Data("a\r\nX-Injected: 1".utf8).base64EncodedString())], nil, 400),
            ("PATCH", url, tus + [("Upload-Offset", "0"), ("Content-Type", "text/plain")], Data("abc".utf8), 415),
            ("PATCH", url, tus + [("Upload-Offset", "3"), octets], Data("abc".utf8), 409),
            ("PATCH", url, tus + [("Upload-Offset", "0"), octets], Data("abcdefghijklmnop".utf8), 413),
            ("PATCH", url, tus + [("Upload-Offset", "0"), octets, ("Upload-Checksum", "blake3 AAAA")], Data("abc".utf8), 400),
            ("PATCH", url, tus + [("Upload-Offset", "0"), octets, ("Upload-Checksum", "crc32 AAAAAAAA")], Data("abc".utf8), 400),
            ("PATCH", url, tus + [("Upload-Offset", "0"), octets, ("Upload-Checksum", "sha1 " + Data(repeating: 0, count: 20).base64EncodedString())], Data("abc".utf8), 460),
            ("HEAD", server.endpoint + "00000000000000000000000000000000", tus, nil, 404),
            ("HEAD", server.endpoint + "..%2F..%2Fetc%2Fpasswd", tus, nil, 404),
            ("PATCH", server.endpoint + "../uploads/x", tus + [("Upload-Offset", "0"), octets], Data("a".utf8), 404),
        ]
        for (method, target, headers, body, status) in cases {
            let response = try await send(method, target, headers, body: body)
            XCTAssertEqual(response.status, status, "\(method) \(target) \(headers)")
        }
        let head = try await send("HEAD", url, tus)
        XCTAssertEqual(head.headers["Upload-Offset"], "0", "refused bodies leave the upload untouched")
        XCTAssertEqual(head.headers["Upload-Metadata"], "filename Zi5iaW4=")
        XCTAssertEqual(head.headers["Cache-Control"], "no-store")
    }

    func testChecksummedPatchAndTermination() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let url = try await create(server, length: 6)
        let checksum = "sha1 " + "qZk+NkcGgWq6PiVxeFDCbJzQ2J0="
        let first = try await send("PATCH", url, tus + [("Upload-Offset", "0"), octets, ("Upload-Checksum", checksum)], body: Data("abc".utf8))
        XCTAssertEqual(first.status, 204)
        XCTAssertEqual(first.headers["Upload-Offset"], "3")
        XCTAssertNotNil(first.headers["Upload-Expires"])
        let wrong = try await send("PATCH", url, tus + [("Upload-Offset", "3"), octets, ("Upload-Checksum", "crc32 AAAAAA==")], body: Data("def".utf8))
        XCTAssertEqual(wrong.status, 460, "a CRC-32 that does not match")
        let second = try await send("PATCH", url, tus + [("Upload-Offset", "3"), octets, ("Upload-Checksum", "crc32 DMThYQ==")], body: Data("def".utf8))
        XCTAssertEqual(second.headers["Upload-Offset"], "6")
        XCTAssertEqual(try server.storedBytes(of: url), Data("abcdef".utf8))
        let deleted = try await send("DELETE", url, tus)
        XCTAssertEqual(deleted.status, 204)
        let after = try await send("HEAD", url, tus)
        XCTAssertEqual(after.status, 404)
    }

    /// An unfinished upload lives for the engine's upload lifetime (24 h) by its clock, then is gone.
    func testAnUnfinishedUploadExpiresByTheEnginesClock() async throws {
        let clock = ManualClock()
        let server = try EngineTestServer(clock: clock)
        defer { server.stop() }
        let url = try await create(server, length: 6)
        let started = try await send("PATCH", url, tus + [("Upload-Offset", "0"), octets], body: Data("abc".utf8))
        XCTAssertEqual(started.status, 204)
        clock.advance(by: .seconds(24 * 3600 - 1))
        let alive = try await send("HEAD", url, tus)
        XCTAssertEqual(alive.headers["Upload-Offset"], "3", "alive a second before it expires")
        clock.advance(by: .seconds(2))
        let expired = try await send("HEAD", url, tus)
        XCTAssertEqual(expired.status, 404, "gone once it expired")
    }

    /// A chunked PATCH over a raw connection, its `Upload-Checksum` in a trailer (`nil`: announced, not sent).
    private func trailerPatch(_ server: EngineTestServer, _ url: String, offset: Int, body: String, trailer: String?) throws -> String {
        let connection = try RawConnection(port: server.port)
        let path = try XCTUnwrap(URL(string: url)?.path)
        let chunk = String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n"
        connection.send("PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: \(offset)\r\n"
            + "Content-Type: application/offset+octet-stream\r\nTransfer-Encoding: chunked\r\nTrailer: Upload-Checksum\r\n\r\n"
            + chunk + "0\r\n" + (trailer.map { "Upload-Checksum: \($0)\r\n" } ?? "") + "\r\n")
        return connection.read(timeout: 10) { $0.contains("\r\n\r\n") }.text
    }

    func testChecksumInATrailerIsVerified() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let url = try await create(server, length: 12)
        let right = try trailerPatch(server, url, offset: 0, body: "abc", trailer: "crc32 NSRBwg==")
        XCTAssertTrue(right.hasPrefix("HTTP/1.1 204") && right.contains("Upload-Offset: 3"), right)
        XCTAssertTrue(right.contains("Upload-Checksum-Verified: crc32"), "the answer says what was verified: \(right)")
        let wrong = try trailerPatch(server, url, offset: 3, body: "def", trailer: "crc32 AAAAAA==")
        XCTAssertTrue(wrong.hasPrefix("HTTP/1.1 460"), wrong)
        let missing = try trailerPatch(server, url, offset: 3, body: "def", trailer: nil)
        XCTAssertTrue(missing.hasPrefix("HTTP/1.1 400") && missing.contains("trailer is missing"), missing)
        // Not the algorithm computed as the bytes arrive: read back from the stored bytes.
        let sha1 = try trailerPatch(server, url, offset: 3, body: "def", trailer: "sha1 WJwiM1o4HxItEpIl9cC6MFbtWBE=")
        XCTAssertTrue(sha1.hasPrefix("HTTP/1.1 204") && sha1.contains("Upload-Offset: 6"), sha1)
        XCTAssertTrue(sha1.contains("Upload-Checksum-Verified: sha1"), sha1)

        // The HTTP client sends the trailer itself, from the bytes as it reads them.
        let fields = tus + [("Upload-Offset", "6"), octets]
        let sent = try await http.send(HTTPRequest(method: "PATCH", url: url, headers: fields, body: .data(Data("ghi".utf8)), digestTrailer: HTTPRequest.DigestTrailer(field: "Upload-Checksum", algorithm: .crc32) { ChecksumAlgorithm.crc32.headerValue(digest: $0) }))
        XCTAssertEqual(sent.status, 204)
        XCTAssertEqual(sent.headers["Upload-Offset"], "9")
        XCTAssertEqual(sent.headers["Upload-Checksum-Verified"], "crc32")
        let file = try TemporaryDirectory()
        try Data("0jkl".utf8).write(to: URL(fileURLWithPath: file.path + "/part"))
        let fromFile = try await http.send(HTTPRequest(
            method: "PATCH", url: url, headers: tus + [("Upload-Offset", "9"), octets], body: .file(path: file.path + "/part", offset: 1, length: 3),
            digestTrailer: HTTPRequest.DigestTrailer(field: "Upload-Checksum", algorithm: .sha256) { ChecksumAlgorithm.sha256.headerValue(digest: $0) }))
        XCTAssertEqual(fromFile.status, 204)
        XCTAssertEqual(try server.storedBytes(of: url), Data("abcdefghijkl".utf8))
    }

    func testAnAnnouncedChecksumKeepsNothingOfACutBody() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let url = try await create(server, length: 100)
        let path = try XCTUnwrap(URL(string: url)?.path)
        do {
            let connection = try RawConnection(port: server.port)
            connection.send("PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
                + "Content-Type: application/offset+octet-stream\r\nTransfer-Encoding: chunked\r\nTrailer: Upload-Checksum\r\n\r\n"
                + "a\r\n0123456789\r\n")
            _ = connection.read(timeout: 0.3)
        }
        // Once the cut request lets go of the upload (423 until then), it starts again from 0.
        let status = try await firstAnswer(within: .seconds(5)) { () async throws -> Int? in
            let status = try await send("PATCH", url, tus + [("Upload-Offset", "0"), octets], body: Data("0123456789".utf8)).status
            return status == 423 ? nil : status
        } ?? 423
        XCTAssertEqual(status, 204, "the 10 bytes of the cut body were not kept")
    }

    func testCreationWithUploadChecksItsChecksum() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let fields = tus + [("Upload-Length", "3"), octets]
        let wrong = try await send("POST", server.endpoint, fields + [("Upload-Checksum", "crc32 AAAAAA==")], body: Data("abc".utf8))
        XCTAssertEqual(wrong.status, 460)
        let created = try XCTUnwrap(wrong.headers["Location"], "the upload exists, empty")
        let head = try await send("HEAD", created, tus)
        XCTAssertEqual(head.headers["Upload-Offset"], "0")
        let malformed = try await send("POST", server.endpoint, fields + [("Upload-Checksum", "crc32")], body: Data("abc".utf8))
        XCTAssertEqual(malformed.status, 400)
        let right = try await send("POST", server.endpoint, fields + [("Upload-Checksum", "crc32 NSRBwg==")], body: Data("abc".utf8))
        XCTAssertEqual(right.status, 201)
        XCTAssertEqual(right.headers["Upload-Offset"], "3")
        XCTAssertEqual(try server.storedBytes(of: try XCTUnwrap(right.headers["Location"])), Data("abc".utf8))
    }

    func testDeferredLengthAndCreationWithUpload() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let deferred = try await send("POST", server.endpoint, tus + [("Upload-Defer-Length", "1")])
        let url = try XCTUnwrap(deferred.headers["Location"])
        let head = try await send("HEAD", url, tus)
        XCTAssertEqual(head.headers["Upload-Defer-Length"], "1")
        let patch = try await send("PATCH", url, tus + [("Upload-Offset", "0"), ("Upload-Length", "4"), octets], body: Data("wxyz".utf8))
        XCTAssertEqual(patch.headers["Upload-Offset"], "4")
        XCTAssertEqual(patch.headers["Upload-Length"], "4")

        let inline = try await send("POST", server.endpoint, tus + [("Upload-Length", "5"), octets], body: Data("hello".utf8))
        XCTAssertEqual(inline.status, 201)
        XCTAssertEqual(inline.headers["Upload-Offset"], "5")
        XCTAssertEqual(try server.storedBytes(of: try XCTUnwrap(inline.headers["Location"])), Data("hello".utf8))
    }

    func testPartialUploadsSurviveARestart() async throws {
        let data = try TemporaryDirectory(prefix: "engine-restart")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        let url = try await create(server, length: 6)
        _ = try await send("PATCH", url, tus + [("Upload-Offset", "0"), octets], body: Data("abc".utf8))
        // Created with its first bytes: the record is written once, when they are in.
        let inline = try await send("POST", server.endpoint, tus + [("Upload-Length", "4"), octets], body: Data("wxy".utf8))
        let inlineURL = try XCTUnwrap(inline.headers["Location"])
        // A data file without a record: a creating request cut by a crash.
        let orphan = data.path + "/uploads/" + String(repeating: "0", count: 32) + ".bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: orphan, contents: Data("cut".utf8)))
        server.stop(keepData: true)

        server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        func moved(_ url: String) -> String {
            url.replacingOccurrences(of: URL(string: url)?.port.map { ":\($0)" } ?? "", with: ":\(server.port)")
        }
        let head = try await send("HEAD", moved(url), tus)
        XCTAssertEqual(head.headers["Upload-Offset"], "3")
        _ = try await send("PATCH", moved(url), tus + [("Upload-Offset", "3"), octets], body: Data("def".utf8))
        XCTAssertEqual(try server.storedBytes(of: moved(url)), Data("abcdef".utf8))
        let inlineHead = try await send("HEAD", moved(inlineURL), tus)
        XCTAssertEqual(inlineHead.headers["Upload-Offset"], "3")
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphan), "the orphaned data file is removed at start")
    }

    /// tuspy, the tus client from PyPI, uploads to the engine and resumes from its offset.
    func testTuspyUploadsAndResumes() async throws {
        let python = try PythonPeers.require("python")
        let server = try EngineTestServer()
        defer { server.stop() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        var generator = SystemRandomNumberGenerator()
        let content = Data((0..<(3_500_000 / 8)).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
        let path = try files.write("f.bin", data: content)
        let result = try ProcessRunner.run(python, [PackageRoot.path + "/Tests/EngineTests/Fixtures/tuspy_resume.py", server.endpoint, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("OFFSET 2097152"), result.stdout)
        let url = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("URL ") }.map { String($0.dropFirst(4)) })
        XCTAssertEqual(try server.storedBytes(of: url), content)
    }
}
