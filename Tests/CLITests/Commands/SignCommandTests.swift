import Basics
import Client
import Foundation
import TestSupport
import Wire
import XCTest

final class SignCommandTests: XCTestCase {
    private let secret = "cli-secret-5d1e"
    private let token = "cli-token-0a9b"

    private func paramsFile(_ text: String) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        return (directory, try directory.write("params.json", text))
    }

    func testSignsWithTheSecretFromTheEnvironmentAndNeverPrintsIt() async throws {
        let (directory, path) = try paramsFile(#"{"steps": {"r": {"robot": "/image/resize", "width": 200}}, "fields": {"title": "Café"}}"#)
        defer { directory.remove() }
        let result = await CLIHarness.run(
            ["sign", "--params", path, "--key", "my-key"], environment: ["TRANSLOADIT_SECRET": secret])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains(secret))
        let output = try JSONValue.parse(Data(result.stdout.utf8))
        let params = try XCTUnwrap(output["params"]?.stringValue)
        XCTAssertEqual(output["signature"], .string(Signature.sign(params, secret: secret)), "the signature covers the exact string printed")
        let parsed = try JSONValue.parse(Data(params.utf8))
        XCTAssertEqual(parsed["auth"]?["key"], .string("my-key"))
        XCTAssertNotNil(parsed["auth"]?["expires"]?.stringValue)
        XCTAssertEqual(parsed["fields"]?["title"], .string("Café"))
    }

    func testExistingAuthValuesAreKept() async throws {
        let (directory, path) = try paramsFile(#"{"auth": {"key": "k", "expires": "2030-01-01T00:00:00.000Z", "nonce": "n1"}}"#)
        defer { directory.remove() }
        let result = await CLIHarness.run(["sign", "--params", path], environment: ["TRANSLOADIT_SECRET": secret])
        XCTAssertEqual(result.status, 0, result.stderr)
        let params = try XCTUnwrap(JSONValue.parse(Data(result.stdout.utf8))["params"]?.stringValue)
        XCTAssertEqual(params, #"{"auth":{"expires":"2030-01-01T00:00:00.000Z","key":"k","nonce":"n1"}}"#)
    }

    func testURLSignerWithATokenFromTheEnvironment() async throws {
        let server = try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/ClientTests/Signing/Fixtures/signer_server.py", secret, token])
        defer { server.stop() }
        let (directory, path) = try paramsFile(#"{"auth": {"key": "k"}, "steps": {}}"#)
        defer { directory.remove() }
        let result = await CLIHarness.run(
            ["sign", "--params", path, "--signer", "url", "--url", server.url("/sign"), "--token-env", "SIGNER_TOKEN"],
            environment: ["SIGNER_TOKEN": token])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains(token))
        let output = try JSONValue.parse(Data(result.stdout.utf8))
        XCTAssertEqual(output["signature"], .string(Signature.sign(output["params"]?.stringValue ?? "", secret: secret)))
    }

    func testErrors() async throws {
        let (directory, path) = try paramsFile(#"{"auth": {"key": "k"}}"#)
        defer { directory.remove() }
        let missingSecret = await CLIHarness.run(["sign", "--params", path], environment: [:])
        XCTAssertEqual(missingSecret.status, 1)
        XCTAssertTrue(missingSecret.stderr.contains("$TRANSLOADIT_SECRET is not set"), missingSecret.stderr)

        let notJSON = try directory.write("bad.json", "steps: {}")
        let bad = await CLIHarness.run(["sign", "--params", notJSON], environment: ["TRANSLOADIT_SECRET": secret])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("are not a JSON object"), bad.stderr)

        let insecure = await CLIHarness.run(["sign", "--params", path, "--signer", "url", "--url", "http://signer.example.com/sign"])
        XCTAssertEqual(insecure.status, 64)
        XCTAssertTrue(insecure.stderr.contains("--url must be https"), insecure.stderr)
    }
}
