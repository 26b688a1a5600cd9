import Foundation
import HTTPClient
import TestSupport
import XCTest

/// Credentials go only to the host libcurl really connects to, read with libcurl's own parser.
final class CurlURLTests: XCTestCase {
    func testTheHostIsTheOneLibcurlConnectsTo() {
        XCTAssertEqual(CurlURL.target(of: "http://127.0.0.1:1@127.0.0.2/sign")?.host, "127.0.0.2")
        XCTAssertEqual(CurlURL.target(of: "HTTPS://Signer.Example.com:8443/x")?.scheme, "https")
        XCTAssertEqual(CurlURL.target(of: "HTTPS://Signer.Example.com:8443/x")?.host, "signer.example.com")
        XCTAssertFalse(CurlURL.allowsSecrets("http://127.0.0.1:1@127.0.0.2/"))
        XCTAssertFalse(CurlURL.allowsSecrets("http://localhost:80@evil.example/"))
        XCTAssertTrue(CurlURL.allowsSecrets("http://127.0.0.1:8080/sign"))
        XCTAssertTrue(CurlURL.allowsSecrets("https://signer.example.com/sign"))
    }

    func testABearerTokenIsNeverSentToAnotherHost() async throws {
        let server = try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/HTTPClientTests/Fixtures/http_server.py"])
        defer { server.stop() }
        let request = HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.port)@127.0.0.2:\(server.port)/echo", headers: [("Authorization", "Bearer s3cret")])
        do {
            _ = try await HTTPClient().send(request)
            XCTFail("the token was sent")
        } catch let error as HTTPError {
            XCTAssertEqual(error.kind, .insecureCredentials)
            XCTAssertFalse(error.description.contains("s3cret"))
        }
        // The same token to the loopback host itself goes.
        let direct = try await HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/echo"), headers: [("Authorization", "Bearer s3cret")]))
        XCTAssertEqual(direct.status, 200)
    }
}
