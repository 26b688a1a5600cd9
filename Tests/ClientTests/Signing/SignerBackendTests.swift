import Client
import Foundation
import HTTPClient
import TestSupport
import Wire
import XCTest

/// The command and URL signers against real programs and a real HTTP signer that misbehaves.
final class SignerBackendTests: XCTestCase {
    private let secret = "test-secret-7f3a"
    private let token = "test-token-91c2"
    private let params = #"{"auth":{"key":"k"},"steps":{"resize":{"robot":"/image/resize","width":200}}}"#

    private func startSigner() throws -> ServerProcess {
        try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/ClientTests/Signing/Fixtures/signer_server.py", secret, token])
    }

    func testURLSignerGetsTheSignatureOfExactlyTheParamsSent() async throws {
        let server = try startSigner()
        defer { server.stop() }
        let signature = try await URLSigner(url: server.url("/sign"), tokens: FixedToken(token), http: HTTPClient()).sign(params)
        XCTAssertEqual(signature, Signature.sign(params, secret: secret))
    }

    func testURLSignerRefusesEveryMisbehaviour() async throws {
        let server = try startSigner()
        defer { server.stop() }
        let http = HTTPClient()
        let cases: [(String, String?, Duration, String)] = [
            ("/redirect", token, .seconds(5), "answered HTTP 307 (redirects are refused"),
            ("/error", token, .seconds(5), "answered HTTP 500"),
            ("/changed", token, .seconds(5), "returned different params than were sent"),
            ("/malformed", token, .seconds(5), "returned a malformed signature"),
            ("/slow", token, .seconds(1), "did not answer"),
            ("/sign", "wrong-token", .seconds(5), "answered HTTP 401"),
        ]
        for (path, bearer, timeout, expected) in cases {
            let start = ContinuousClock.now
            do {
                _ = try await URLSigner(url: server.url(path), tokens: bearer.map(FixedToken.init), http: http, timeout: timeout).sign(params)
                XCTFail("\(path) must be refused")
            } catch {
                XCTAssertTrue(error.message.contains(expected), "\(path): \(error.message)")
                XCTAssertFalse(error.message.contains(token), "the token never appears in an error")
                XCTAssertFalse(error.message.contains(secret))
            }
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(4), path)
        }
    }

    /// A transient refusal with a short `retry_in` (keys being rotated at an identity provider) is
    /// asked again after it, a few times; a long one fails at once.
    func testURLSignerWaitsOutATransientRefusal() async throws {
        let server = try startSigner()
        defer { server.stop() }
        let http = HTTPClient()
        let clock = ImpatientClock()
        let signature = try await URLSigner(url: server.url("/rotating"), tokens: FixedToken(token), http: http, clock: clock).sign(params)
        XCTAssertEqual(signature, Signature.sign(params, secret: secret))
        XCTAssertEqual(clock.sleeps, [.seconds(1)], "it waited the second it was told")
        for (path, expected) in [("/busy", "answered HTTP 503: KEY_NOT_YET_FETCHED"), ("/quota", "answered HTTP 429: QUOTA_EXCEEDED")] {
            do {
                _ = try await URLSigner(url: server.url(path), tokens: FixedToken(token), http: http, clock: clock).sign(params)
                XCTFail("\(path) must fail")
            } catch {
                XCTAssertTrue(error.message.contains(expected), "\(path): \(error.message)")
            }
        }
        XCTAssertEqual(clock.sleeps, [.seconds(1), .seconds(1), .seconds(1)], "a short wait is asked again up to three attempts in all; a long one fails at once")
    }

    func testCommandSignerReadsTheSignatureFromStandardOutput() async throws {
        let script = "import hmac,hashlib,sys; print('sha384:'+hmac.new(b'\(secret)', sys.stdin.buffer.read(), hashlib.sha384).hexdigest())"
        let signature = try await CommandSigner(arguments: ["python3", "-c", script]).sign(params)
        XCTAssertEqual(signature, Signature.sign(params, secret: secret))
    }

    func testCommandSignerFailureShowsTheProgramsStandardError() async {
        do {
            _ = try await CommandSigner(arguments: ["sh", "-c", "echo 'vault: permission denied' >&2; exit 3"]).sign(params)
            XCTFail("the program failed")
        } catch {
            XCTAssertEqual(error.message, "signing command 'sh' exited with status 3; it said: vault: permission denied")
        }
    }

    func testCommandSignerRefusesMalformedOutput() async {
        do {
            _ = try await CommandSigner(arguments: ["sh", "-c", "cat >/dev/null; echo not-a-signature"]).sign(params)
            XCTFail("the output is not a signature")
        } catch {
            XCTAssertTrue(error.message.hasPrefix("signing command 'sh' printed no valid signature"), error.message)
        }
    }

    func testHangingCommandIsStoppedAtTheTimeout() async {
        let start = ContinuousClock.now
        do {
            _ = try await CommandSigner(arguments: ["sleep", "30"], timeout: .seconds(1)).sign(params)
            XCTFail("the program hangs")
        } catch {
            XCTAssertEqual(error.message, "signing command 'sleep' did not answer within 1 s")
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
    }

    func testMissingProgramIsAClearError() async {
        do {
            _ = try await CommandSigner(arguments: ["/nonexistent/signer"]).sign(params)
            XCTFail("no such program")
        } catch {
            XCTAssertTrue(error.message.hasPrefix("cannot run signing command 'signer'"), error.message)
        }
    }
}
