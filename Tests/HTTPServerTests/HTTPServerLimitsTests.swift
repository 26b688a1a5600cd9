import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// Answers every request with a small JSON body, collects small bodies and parses forms into a
/// folder, so the server's own behaviour can be seen without an engine behind it.
private struct EchoHandler: HTTPServerHandler {
    let formDirectory: String

    func plan(_ head: RequestHead) -> RequestPlan {
        switch head.path {
        case "/form":
            return .form(directory: formDirectory, limit: 64 << 20, admit: { form in
                form.field("token") == "ok" ? nil : .text(403, "refused before any file was stored")
            }, then: { form in
                .json(200, #"{"fields":\#(form.fields.count),"files":\#(form.files.count)}"#)
            })
        case "/origin":
            return .respond(.text(200, head.origin))
        default:
            return .respond(.json(200, #"{"ok":true}"#))
        }
    }
}

/// The server's defences and manners: keep-alive, a deadline for request heads, a per-client
/// connection limit, capped form fields, refused forms that store nothing, checked Host headers.
final class HTTPServerLimitsTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "http-server")
    }

    override func tearDown() {
        directory.remove()
    }

    private func start(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServer.Configuration(port: 0)
        configure(&configuration)
        return try HTTPServer(configuration, handler: EchoHandler(formDirectory: directory.path + "/form"))
    }

    private static func complete(_ text: String) -> Bool { text.hasSuffix("}") || text.hasSuffix("\n") && text.contains("\r\n\r\n") }

    func testConnectionsAreKeptAlive() throws {
        let server = try start()
        defer { server.stop() }
        let connection = try RawConnection(port: Int(server.port))
        for _ in 0..<3 {
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
            let answer = connection.read(timeout: 5, until: Self.complete)
            XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 200"), answer.text)
            XCTAssertFalse(answer.text.lowercased().contains("connection: close"), answer.text)
            XCTAssertFalse(answer.closed)
        }
    }

    func testTrickledHeadersAreCutOffAtTheDeadline() throws {
        let server = try start { $0.headerTimeout = 1 }
        defer { server.stop() }
        let slow = try RawConnection(port: Int(server.port))
        slow.send("GET /healthz HTTP/1.1\r\n")
        let started = Date()
        var closed = false
        // One header line every 200 ms resets an idle timeout forever; the deadline does not reset.
        while Date().timeIntervalSince(started) < 5 {
            if !slow.send("X-Slow: \(Int.random(in: 0..<1000))\r\n") || slow.read(timeout: 0.2).closed {
                closed = true
                break
            }
        }
        XCTAssertTrue(closed, "a trickling client kept its connection for 5 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testOneClientCannotTakeEveryConnection() throws {
        let server = try start { $0.perClientLimit = 4 }
        defer { server.stop() }
        let hogs = try (0..<4).map { _ in try RawConnection(port: Int(server.port)) }
        for hog in hogs { hog.send("GET /healthz HTTP/1.1\r\n") }
        // The fifth connection from the same address is turned away ...
        let fifth = try RawConnection(port: Int(server.port))
        fifth.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        XCTAssertFalse(fifth.read(timeout: 2, until: Self.complete).text.hasPrefix("HTTP/1.1 200"))
        // ... while another client is answered at once.
        let other = try RawConnection(port: Int(server.port), source: "127.0.0.2")
        other.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        let answer = other.read(timeout: 2, until: Self.complete)
        XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 200"), answer.text)
    }

    func testFormFieldsAreCappedAndAnsweredWithoutBufferingTheRest() async throws {
        let server = try start()
        defer { server.stop() }
        let body = "token=ok&params=" + String(repeating: "a", count: 3 << 20)
        let response = try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/form",
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(body.utf8))))
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("fields are larger than 1024 KiB"))
    }

    func testARefusedFormStoresNoFileAndAnAcceptedOneLeavesNothingBehind() async throws {
        let server = try start()
        defer { server.stop() }
        let file = Data(repeating: 7, count: 2 << 20)
        let refused = try await postForm(server, fields: [("token", "bad")], file: file)
        XCTAssertEqual(refused.status, 403)
        let accepted = try await postForm(server, fields: [("token", "ok")], file: file)
        XCTAssertEqual(accepted.status, 200)
        XCTAssertEqual(String(decoding: accepted.body, as: UTF8.self), #"{"fields":1,"files":1}"#)
        let filesFirst = try await postForm(server, fields: [], file: file, trailingFields: [("token", "ok")])
        XCTAssertEqual(filesFirst.status, 403, "fields sent after the file cannot admit it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/form"), "temporary files were left behind")
    }

    func testOnlyTheServedHostIsAnsweredAndOriginsAreNeverReflected() throws {
        let plain = try start { $0.origin = PublicOrigin() }
        defer { plain.stop() }
        let port = plain.port
        let cases: [(String?, [(String, String)], Int, String?)] = [
            ("127.0.0.1:\(port)", [], 200, "http://127.0.0.1:\(port)"),
            ("localhost:\(port)", [], 200, "http://localhost:\(port)"),
            ("attacker.example", [], 421, nil),
            ("127.0.0.1:\(port)", [("X-Forwarded-Host", "attacker.example")], 200, "http://127.0.0.1:\(port)"),
        ]
        for (host, extra, status, origin) in cases {
            let answer = try originOf(plain, host: host, extra: extra)
            XCTAssertEqual(answer.status, status, "\(String(describing: host)) \(extra)")
            if let origin { XCTAssertEqual(answer.origin, origin) }
        }

        let proxied = try start { $0.origin = PublicOrigin(publicURL: "https://engine.example.com/", trustProxy: false) }
        defer { proxied.stop() }
        let fixed = try originOf(proxied, host: "127.0.0.1:\(proxied.port)", extra: [])
        XCTAssertEqual(fixed.origin, "https://engine.example.com")
        XCTAssertEqual(try originOf(proxied, host: "engine.example.com:443", extra: []).status, 200)
        XCTAssertEqual(try originOf(proxied, host: "engine.example.com", extra: []).status, 200)
        XCTAssertEqual(try originOf(proxied, host: "rebound.example", extra: []).status, 421)

        let trusting = try start { $0.origin = PublicOrigin(trustProxy: true) }
        defer { trusting.stop() }
        let forwarded = try originOf(trusting, host: "127.0.0.1:\(trusting.port)", extra: [("Forwarded", "for=1.2.3.4;host=cdn.example;proto=https")])
        XCTAssertEqual(forwarded.origin, "https://cdn.example")
        let xForwarded = try originOf(trusting, host: "127.0.0.1:\(trusting.port)", extra: [("X-Forwarded-Host", "up.example"), ("X-Forwarded-Proto", "https")])
        XCTAssertEqual(xForwarded.origin, "https://up.example")
        let injected = try originOf(trusting, host: "127.0.0.1:\(trusting.port)", extra: [("X-Forwarded-Host", "a.example/path?x")])
        XCTAssertEqual(injected.origin, "http://127.0.0.1:\(trusting.port)")
    }

    private func originOf(_ server: HTTPServer, host: String?, extra: [(String, String)]) throws -> (status: Int, origin: String) {
        let connection = try RawConnection(port: Int(server.port))
        var request = "GET /origin HTTP/1.1\r\n"
        if let host { request += "Host: \(host)\r\n" }
        for (name, value) in extra { request += "\(name): \(value)\r\n" }
        connection.send(request + "Connection: close\r\n\r\n")
        let text = connection.read(timeout: 5).text
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined().trimmingCharacters(in: .whitespacesAndNewlines)
        return (status, body)
    }

    private func postForm(
        _ server: HTTPServer, fields: [(String, String)], file: Data, trailingFields: [(String, String)] = []
    ) async throws -> HTTPResponse {
        let boundary = "----limits-\(UUID().uuidString)"
        var body = Data()
        func field(_ name: String, _ value: String) {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        for (name, value) in fields { field(name, value) }
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(file)
        body.append(Data("\r\n".utf8))
        for (name, value) in trailingFields { field(name, value) }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/form",
            headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: .data(body)))
    }
}
