import Basics
import Foundation
import TestSupport
import XCTest

/// A policy that allows a Template by name: `pipeline signer` looks each `template_id` up on the
/// service with its own key, and signs only when the Template's name is allowed and its steps,
/// as the service holds them now, pass the policy.
final class SignerTemplatesEndToEndTests: XCTestCase {
    func testTemplateIDsAreCheckedByTheNameAndStepsTheServiceHolds() async throws {
        let secret = "tpl-secret-41c2", token = "tpl-token-93d4"
        let directory = try TemporaryDirectory(prefix: "signer-templates")
        defer { directory.remove() }
        let engine = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", directory.path + "/engine", "--auth-key", "test-key", "--quiet",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { engine.stop() }
        try directory.write("signer/policy.yml", """
            version: 1
            auth_key: test-key
            max_expires_in: 1h
            templates: {allowed: [site-thumbs], allow_listing: true}
            robots:
              /image/resize:
                width: {type: integer, max: 1000}
                use: {}
            """)
        try directory.write("signer/callers.yml", "version: 1\ncallers:\n  - name: ci\n    token_sha256: \(FileHashing.sha256(Data(token.utf8)))\n")
        func startSigner() throws -> ServerProcess {
            try ServerProcess(ProcessRunner.pipelineExecutable, [
                "signer", "--policy", directory.path + "/signer/policy.yml", "--tokens", directory.path + "/signer/callers.yml",
                "--port", "0", "--endpoint", engine.url(""),
            ], environment: ["TRANSLOADIT_SECRET": secret])
        }
        let signer = try startSigner()
        defer { signer.stop() }

        try directory.write("site/images/a.png", data: TestImages.png(width: 300, height: 200))
        func manifest(width: Int, signed: Bool = true) -> String {
            """
            version: 1
            endpoint: \(engine.url(""))
            auth:
              key: test-key
              \(signed ? "signer: {url: '\(signer.url("/sign"))', token: '${SIGNER_TOKEN}'}" : "")
            results: results.json
            templates:
              site-thumbs:
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: \(width)}
            assemblies:
              thumbs: {inputs: [images/*.png], template: site-thumbs}
            """
        }
        try directory.write("site/pipeline.yml", manifest(width: 100))
        let run = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", directory.path + "/site/pipeline.yml"], environment: ["SIGNER_TOKEN": token])
        XCTAssertEqual(run.status, 0, "the Template write and the template_id Assembly are both signed: \(run.stderr)")
        let recorded = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/site/.pipeline/manifests/pipeline/templates.json")))
        let id = try XCTUnwrap(recorded.objectValue?.values.first?["site-thumbs"]?["id"]?.stringValue)

        func sign(_ params: String, at signer: ServerProcess) throws -> ProcessResult {
            try directory.write("params.json", params)
            return try ProcessRunner.run(ProcessRunner.pipelineExecutable, [
                "sign", "--params", directory.path + "/params.json", "--signer", "url", "--url", signer.url("/sign"),
                "--token-env", "SIGNER_TOKEN", "--key", "test-key", "--expires-in", "10m",
            ], environment: ["SIGNER_TOKEN": token])
        }
        XCTAssertEqual(try sign(#"{"template_id": "\#(id)"}"#, at: signer).status, 0)

        // The Template is changed on the service behind the manifest's back (with the secret): a
        // signer that looks it up now refuses the same id for the steps it holds.
        try directory.write("admin/pipeline.yml", manifest(width: 5000, signed: false))
        let sync = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["templates", "sync", directory.path + "/admin/pipeline.yml"],
                                         environment: ["TRANSLOADIT_SECRET": secret])
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertTrue(sync.stdout.contains("updated site-thumbs  \(id)"), sync.stdout)
        let fresh = try startSigner()
        defer { fresh.stop() }
        let changed = try sign(#"{"template_id": "\#(id)"}"#, at: fresh)
        XCTAssertEqual(changed.status, 1)
        XCTAssertTrue(changed.stderr.contains("must be at most 1000, found 5000"), changed.stderr)

        for (params, expected) in [
            (#"{"template_id": "0123456789abcdef0123456789abcdef"}"#, "signer.template-unknown"),
            (#"{"template_id": "../assemblies"}"#, "INVALID_TEMPLATE_ID"),
        ] {
            let refused = try sign(params, at: signer)
            XCTAssertEqual(refused.status, 1, params)
            XCTAssertTrue(refused.stderr.contains("HTTP 403") && refused.stderr.contains(expected), refused.stderr)
            XCTAssertFalse(refused.stderr.contains(secret), refused.stderr)
        }
    }
}
