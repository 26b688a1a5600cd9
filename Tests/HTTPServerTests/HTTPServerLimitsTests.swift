import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// The server's defences and manners (`HTTPServer`, `HeaderDeadline`): keep-alive, a deadline
/// for request heads, a per-client connection limit.
final class HTTPServerLimitsTests: HTTPServerTestCase {
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
}
