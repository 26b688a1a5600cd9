import Foundation
import TestSupport
import XCTest

/// `pipeline sign-url` makes the URL the official Python SDK (`pytransloadit`) makes for the same
/// workspace, Template, input, parameters and expiry, and keeps the secret to itself.
final class SignURLTests: XCTestCase {
    private let environment = ["TRANSLOADIT_KEY": "team-key", "TRANSLOADIT_SECRET": "team-secret-\(UInt32.random(in: 0...UInt32.max))"]

    func testTheURLIsTheOfficialSDKsAndTheSecretStaysHidden() throws {
        let python = try PythonPeers.require("python")
        let ours = try ProcessRunner.run(ProcessRunner.pipelineExecutable, [
            "sign-url", "my-app", "thumbs", "photos/2024/beach.jpg", "--param", "width=400", "--param", "tags=sea", "--param", "tags=sun", "--expires", "2h",
        ], environment: environment)
        XCTAssertEqual(ours.status, 0, ours.stderr)
        let url = ours.stdout.trimmingCharacters(in: .newlines)
        XCTAssertFalse(url.contains(environment["TRANSLOADIT_SECRET"] ?? "?"))
        let expires = try XCTUnwrap(url.firstMatch(of: /[?&]exp=([0-9]+)/).flatMap { Int64($0.1) })
        let lifetime = Double(expires) / 1000 - Date().timeIntervalSince1970
        XCTAssertTrue((7100...7200).contains(lifetime), "about two hours: \(lifetime) s")
        let sdk = try ProcessRunner.run(python, ["-c", """
            import sys
            from transloadit.client import Transloadit
            client = Transloadit(sys.argv[1], sys.argv[2])
            print(client.get_signed_smart_cdn_url("my-app", "thumbs", "photos/2024/beach.jpg", {"width": "400", "tags": ["sea", "sun"]}, int(sys.argv[3])))
            """, environment["TRANSLOADIT_KEY"] ?? "", environment["TRANSLOADIT_SECRET"] ?? "", String(expires)])
        XCTAssertEqual(sdk.status, 0, sdk.stderr)
        XCTAssertEqual(url, sdk.stdout.trimmingCharacters(in: .newlines))
    }

    func testWrongInputIsNamedWithTheFix() throws {
        let noSecret = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["sign-url", "w", "t", "i"], environment: ["TRANSLOADIT_KEY": "k", "TRANSLOADIT_SECRET": ""])
        XCTAssertEqual(noSecret.status, 1)
        XCTAssertTrue(noSecret.stderr.contains("$TRANSLOADIT_SECRET is not set"), noSecret.stderr)
        let reserved = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["sign-url", "w", "t", "i", "--param", "exp=1"], environment: environment)
        XCTAssertEqual(reserved.status, 64, reserved.stderr)
        XCTAssertTrue(reserved.stderr.contains("--param exp is set by sign-url itself"), reserved.stderr)
        let bare = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["sign-url", "w", "t", "i", "--param", "width"], environment: environment)
        XCTAssertTrue(bare.stderr.contains("--param needs NAME=VALUE"), bare.stderr)
    }
}
