import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// Host checks and the origin URLs are built from (`PublicOrigin`): never a reflected header.
final class PublicOriginTests: HTTPServerTestCase {
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
}
