import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import XCTest

/// Requests whose framing or tus headers two parties could read differently are refused, and no
/// request can hide inside another's body.
final class RequestFramingTests: XCTestCase {
    /// A fresh 10-byte upload on `server`: its id.
    private func upload(on server: EngineTestServer) async throws -> String {
        let response = try await HTTPClient().send(HTTPRequest(method: "POST", url: server.endpoint, headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "10")]))
        XCTAssertEqual(response.status, 201)
        return try XCTUnwrap(response.headers["Location"]?.split(separator: "/").last.map(String.init))
    }

    private func offset(of id: String, on server: EngineTestServer) async throws -> (status: Int, offset: String?) {
        let response = try await HTTPClient().send(HTTPRequest(method: "HEAD", url: server.endpoint + id, headers: [("Tus-Resumable", "1.0.0")]))
        return (response.status, response.headers["Upload-Offset"])
    }

    private func head(_ method: String, _ id: String, port: Int, _ extra: String) -> String {
        "\(method) /resumable/files/\(id) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTus-Resumable: 1.0.0\r\n"
            + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\n\(extra)\r\n"
    }

    func testARequestHiddenAfterAnAmbiguousBodyNeverRuns() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let id = try await upload(on: server)
        let smuggled = "DELETE /resumable/files/\(id) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTus-Resumable: 1.0.0\r\n\r\n"
        let bodies = [
            ("Content-Length and chunked", "Content-Length: 60\r\nTransfer-Encoding: chunked\r\n", "4\r\nabcd\r\n0\r\n\r\n" + smuggled),
            ("two Content-Lengths", "Content-Length: 4\r\nContent-Length: 40\r\n", "abcd" + smuggled),
            ("a coding other than chunked", "Transfer-Encoding: gzip, chunked\r\n", "4\r\nabcd\r\n0\r\n\r\n" + smuggled),
        ]
        for (name, framing, body) in bodies {
            let connection = try RawConnection(port: server.port)
            connection.send(head("PATCH", id, port: server.port, framing) + body)
            let answer = connection.read(timeout: 5) { $0.contains("\r\n\r\n") && $0.hasSuffix("\n") }
            XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 400"), "\(name): \(answer.text)")
            XCTAssertEqual(answer.text.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "\(name): one answer only: \(answer.text)")
            let closed = connection.read(timeout: 5)
            XCTAssertTrue(closed.closed, "\(name): the connection is closed after the refusal")
            let after = try await offset(of: id, on: server)
            XCTAssertEqual(after.status, 200, "\(name): the hidden DELETE ran")
            XCTAssertEqual(after.offset, "0", "\(name): the ambiguous body was stored")
        }
    }

    func testRepeatedTusHeadersAreRefused() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let id = try await upload(on: server)
        let http = HTTPClient()
        let patch = { (headers: [(name: String, value: String)]) in
            try await http.send(HTTPRequest(method: "PATCH", url: server.endpoint + id, headers: [
                ("Tus-Resumable", "1.0.0"), ("Content-Type", "application/offset+octet-stream"),
            ] + headers, body: .data(Data("abcd".utf8)))).status
        }
        let twoOffsets = try await patch([("Upload-Offset", "0"), ("Upload-Offset", "4")])
        XCTAssertEqual(twoOffsets, 400)
        let twoChecksums = try await patch([("Upload-Offset", "0"), ("Upload-Checksum", "sha1 gf6L/odXbD7LIkJvjleEc4KRes8="), ("Upload-Checksum", "sha1 AAAAAAAAAAAAAAAAAAAAAAAAAAA=")])
        XCTAssertEqual(twoChecksums, 400)
        let created = try await http.send(HTTPRequest(method: "POST", url: server.endpoint, headers: [
            ("Tus-Resumable", "1.0.0"), ("Upload-Length", "10"), ("Upload-Length", "1000"),
        ])).status
        XCTAssertEqual(created, 400)
        let unchanged = try await offset(of: id, on: server)
        XCTAssertEqual(unchanged.offset, "0")
    }

    func testATrailerMustBeAnnouncedAndAlone() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let id = try await upload(on: server)
        let crc = "Upload-Checksum: crc32 7YLNEQ==\r\n"  // CRC-32 of "abcd", as a trailer
        let cases = [
            ("unannounced", "Transfer-Encoding: chunked\r\n", "4\r\nabcd\r\n0\r\n\(crc)\r\n"),
            ("both header and trailer", "Transfer-Encoding: chunked\r\nTrailer: Upload-Checksum\r\nUpload-Checksum: crc32 7YLNEQ==\r\n", "4\r\nabcd\r\n0\r\n\(crc)\r\n"),
            ("twice in the trailer", "Transfer-Encoding: chunked\r\nTrailer: Upload-Checksum\r\n", "4\r\nabcd\r\n0\r\n\(crc)\(crc)\r\n"),
        ]
        for (name, framing, body) in cases {
            let connection = try RawConnection(port: server.port)
            connection.send(head("PATCH", id, port: server.port, framing) + body)
            let answer = connection.read(timeout: 5) { $0.contains("\r\n\r\n") && $0.hasSuffix("\n") }
            XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 400"), "\(name): \(answer.text)")
            let after = try await offset(of: id, on: server)
            XCTAssertEqual(after.offset, "0", "\(name): the body was kept")
        }
        // Announced and alone, the same trailer is taken.
        let connection = try RawConnection(port: server.port)
        connection.send(head("PATCH", id, port: server.port, "Transfer-Encoding: chunked\r\nTrailer: Upload-Checksum\r\n") + "4\r\nabcd\r\n0\r\n\(crc)\r\n")
        let answer = connection.read(timeout: 5) { $0.contains("\r\n\r\n") }
        XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 204"), answer.text)
        let after = try await offset(of: id, on: server)
        XCTAssertEqual(after.offset, "4")
    }
}
