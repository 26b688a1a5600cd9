import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// A server bound to an IPv6 address: `::1` answers on the IPv6 loopback with bracketed origins,
/// `::` on both families; a name is refused before anything is bound.
final class IPv6ListenTests: HTTPServerTestCase {
    func testTheIPv6LoopbackIsServedWithBracketedOrigins() async throws {
        let server = try start {
            $0.host = "::1"
            $0.origin = PublicOrigin()
        }
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPRequest(method: "GET", url: "http://[::1]:\(server.port)/origin"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "http://[::1]:\(server.port)")
        let foreign = try await HTTPClient().send(HTTPRequest(method: "GET", url: "http://[::1]:\(server.port)/origin", headers: [("Host", "attacker.example")]))
        XCTAssertEqual(foreign.status, 421, "another host is still refused")
    }

    func testEveryAddressTakesBothFamilies() async throws {
        let server = try start {
            $0.host = "::"
            $0.origin = PublicOrigin()
        }
        defer { server.stop() }
        for url in ["http://127.0.0.1:\(server.port)/origin", "http://[::1]:\(server.port)/origin"] {
            let response = try await HTTPClient().send(HTTPRequest(method: "GET", url: url))
            XCTAssertEqual(response.status, 200, url)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), String(url.dropLast("/origin".count)))
        }
    }

    func testANameIsNotAnAddressToListenOn() throws {
        XCTAssertTrue(HTTPServer.canListen(on: "::1"))
        XCTAssertTrue(HTTPServer.canListen(on: "0.0.0.0"))
        XCTAssertFalse(HTTPServer.canListen(on: "localhost"))
        XCTAssertFalse(HTTPServer.canListen(on: "[::1]"))
        XCTAssertThrowsError(try start { $0.host = "localhost" }) { error in
            XCTAssertTrue("\(error)".contains("not an IPv4 or IPv6 address"), "\(error)")
        }
        XCTAssertEqual(HTTPServer.urlHost("::1"), "[::1]")
        XCTAssertEqual(HTTPServer.urlHost("127.0.0.1"), "127.0.0.1")
    }
}
