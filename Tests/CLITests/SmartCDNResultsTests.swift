import Basics
import Foundation
import TestSupport
import XCTest

/// A job's `smart_cdn:` writes each source's signed Smart CDN URL into the results: the URL the
/// official Python SDK makes for the same input, parameters and expiry; never without the secret.
final class SmartCDNResultsTests: XCTestCase {
    private let secret = "cdn-secret-\(UInt32.random(in: 0...UInt32.max))"

    private func project() throws -> TemporaryDirectory {
        try TestProject.resizing(
            prefix: "smart-cdn", endpoint: "local", images: ["beach.png": (64, 32), "dune.png": (48, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16}", key: "cdn-key",
            extra: "    smart_cdn: {workspace: my-app, template: thumbs, input_prefix: originals/, params: {w: 400, fit: crop}, expires_in: 2h}")
    }

    func testEachSourceGetsTheURLTheOfficialSDKMakes() async throws {
        let python = try PythonPeers.require("python")
        let directory = try project()
        defer { directory.remove() }
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": secret])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8)
        XCTAssertFalse(text.contains(secret))
        let results = try JSONValue.parse(Data(text.utf8))
        let files = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["files"]?.arrayValue ?? [] }
        XCTAssertEqual(files.count, 2)
        for file in files {
            let path = try XCTUnwrap(file["path"]?.stringValue)
            let url = try XCTUnwrap(file["smart_cdn_url"]?.stringValue, file.serialized())
            let expires = try XCTUnwrap(url.firstMatch(of: /[?&]exp=([0-9]+)/).flatMap { Int64($0.1) })
            XCTAssertTrue((7100...7200).contains(Double(expires) / 1000 - Date().timeIntervalSince1970), url)
            let sdk = try ProcessRunner.run(python, ["-c", """
                import sys
                from transloadit.client import Transloadit
                print(Transloadit("cdn-key", sys.argv[1]).get_signed_smart_cdn_url("my-app", "thumbs", sys.argv[2], {"w": "400", "fit": "crop"}, int(sys.argv[3])))
                """, secret, "originals/" + path, String(expires)])
            XCTAssertEqual(sdk.status, 0, sdk.stderr)
            XCTAssertEqual(url, sdk.stdout.trimmingCharacters(in: .newlines), path)
        }
    }

    func testWithoutTheSecretNothingRunsAndAReservedParameterIsRefused() async throws {
        let directory = try project()
        defer { directory.remove() }
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": ""])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("'smart_cdn' URLs need the Auth Key (auth.key) and the Auth Secret in $TRANSLOADIT_SECRET"), run.stderr)
        // Only a run that writes results signs them: other commands that start the engine never ask for the secret.
        let ran = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": secret])
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let replay = await CLIHarness.run(["replay", directory.path + "/pipeline.yml", "--all"], environment: ["TRANSLOADIT_SECRET": ""])
        XCTAssertFalse(replay.stderr.contains("smart_cdn"), replay.stderr)
        XCTAssertTrue(replay.stderr.contains("keeps none to replay"), replay.stderr)
        let manifest = directory.path + "/pipeline.yml"
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "fit: crop", with: "exp: 1").write(toFile: manifest, atomically: true, encoding: .utf8)
        let validate = await CLIHarness.run(["validate", manifest])
        XCTAssertEqual(validate.status, 1)
        XCTAssertTrue(validate.stderr.contains("'smart_cdn.params' must not set 'exp'"), validate.stderr)
    }
}
