import Basics
import Client
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// Identity tokens for a URL signer: GitHub Actions' token endpoint (served over HTTPS on
/// 127.0.0.1 by the test provider), tokens in variables, renewal before expiry, and errors that
/// never show a token.
final class IdentityTokensTests: XCTestCase {
    private var idp: TestIdentityProvider!
    private let requestToken = "request-token-55aa"

    override func setUpWithError() throws {
        idp = try TestIdentityProvider()
        try idp.write("request-token", requestToken)
    }

    override func tearDown() { idp.stop() }

    private var http: HTTPClient { HTTPClient(trust: TLSTrust(caFiles: [idp.certificate])) }

    private var github: [String: String] {
        // GitHub's URL already has a query; the audience is added with '&'.
        ["ACTIONS_ID_TOKEN_REQUEST_URL": idp.issuer + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": requestToken]
    }

    func testGitHubTokensAreRequestedForTheAudienceAndReusedUntilNearExpiry() async throws {
        let lasting = try idp.mint(["aud": .string("pipeline signer"), "sub": .string("repo:acme/site:ref:refs/heads/main")])
        try idp.write("token-pipeline signer.jwt", lasting)
        let tokens = IdentityTokens(.github(audience: "pipeline signer"), environment: github, http: http)
        let first = try await tokens.token()
        let second = try await tokens.token()
        XCTAssertEqual(first, lasting)
        XCTAssertEqual(second, lasting)
        XCTAssertEqual(idp.requests(to: "/token"), 1, "a token valid for minutes is reused")

        let now = Int(Date().timeIntervalSince1970)
        try idp.write("token-short.jwt", try idp.mint(["aud": .string("short"), "exp": .int(now + 30)]))
        let short = IdentityTokens(.github(audience: "short"), environment: github, http: http)
        _ = try await short.token()
        _ = try await short.token()
        XCTAssertEqual(idp.requests(to: "/token"), 3, "a token within a minute of its expiry is replaced")
    }

    func testGitHubFailuresSayWhatToDoAndShowNoToken() async throws {
        let cases: [([String: String], String)] = [
            ([:], "permissions: id-token: write"),
            (["ACTIONS_ID_TOKEN_REQUEST_URL": idp.issuer + "/token"], "$ACTIONS_ID_TOKEN_REQUEST_TOKEN is not set"),
            (["ACTIONS_ID_TOKEN_REQUEST_TOKEN": requestToken], "$ACTIONS_ID_TOKEN_REQUEST_URL is not set"),
            (github.merging(["ACTIONS_ID_TOKEN_REQUEST_TOKEN": "wrong-request-token"]) { $1 }, "refused the request token (HTTP 401)"),
            (github, "HTTP 404"),
            (github.merging(["ACTIONS_ID_TOKEN_REQUEST_URL": "http://example.com/token?x=1"]) { $1 }, "not https"),
        ]
        for (environment, expected) in cases {
            do {
                _ = try await IdentityTokens(.github(audience: "nobody"), environment: environment, http: http).token()
                XCTFail("\(expected): refused")
            } catch {
                XCTAssertTrue(error.message.contains(expected), error.message)
                XCTAssertFalse(error.message.contains(requestToken) || error.message.contains("wrong-request-token"), error.message)
            }
        }
    }

    func testTokensFromVariables() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let valid = try idp.mint(["aud": .string("pipeline-signer")])
        let read = try await IdentityTokens(.variable("SIGNER_ID_TOKEN"), environment: ["SIGNER_ID_TOKEN": valid + "\n"], http: http).token()
        XCTAssertEqual(read, valid)
        let expired = try idp.mint(["exp": .int(now - 10)])
        for (environment, expected) in [([:], "holds no identity token"), (["SIGNER_ID_TOKEN": "not-a-jwt"], "is not a JWT"),
                                        (["SIGNER_ID_TOKEN": expired], "expired")] {
            do {
                _ = try await IdentityTokens(.variable("SIGNER_ID_TOKEN"), environment: environment, http: http).token()
                XCTFail("\(expected): refused")
            } catch {
                XCTAssertTrue(error.message.contains(expected), error.message)
                XCTAssertFalse(error.message.contains(expired), "the token is never in a message")
            }
        }
    }
}
