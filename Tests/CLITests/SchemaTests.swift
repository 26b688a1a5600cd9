import Foundation
import TestSupport
import XCTest

/// The JSON Schemas accept every example and every plan, and reject what the parser rejects,
/// checked by an independent validator (`check-jsonschema`, installed by scripts/setup.sh).
final class SchemaTests: XCTestCase {
    private func validator() throws -> String {
        try PythonPeers.require("check-jsonschema")
    }

    private func check(schema: String, _ files: [String]) throws -> ProcessResult {
        try ProcessRunner.run(try validator(), ["--schemafile", PackageRoot.path + "/schemas/\(schema)"] + files)
    }

    func testExamplesMatchTheirSchemas() async throws {
        // The examples' own files: not what runs of them leave in hidden folders (`.pipeline/`).
        let examples = try FileManager.default.subpathsOfDirectory(atPath: PackageRoot.path + "/examples").filter { path in
            !path.split(separator: "/").contains { $0.hasPrefix(".") }
        }
        let manifests = examples.filter { $0.hasSuffix("pipeline.yml") }.map { PackageRoot.path + "/examples/" + $0 }
        let policies = examples.filter { $0.hasSuffix("policy.yml") }.map { PackageRoot.path + "/examples/" + $0 }
        XCTAssertFalse(manifests.isEmpty)
        XCTAssertFalse(policies.isEmpty)
        let manifestCheck = try check(schema: "manifest.schema.json", manifests)
        XCTAssertEqual(manifestCheck.status, 0, manifestCheck.stdout + manifestCheck.stderr)
        let policyCheck = try check(schema: "policy.schema.json", policies)
        XCTAssertEqual(policyCheck.status, 0, policyCheck.stdout + policyCheck.stderr)
    }

    func testPlanMatchesItsSchema() async throws {
        let project = try ProjectFixture()
        let plan = project.directory.path + "/plan.json"
        let outcome = await CLIHarness.run(["plan", project.manifest, "--out", plan])
        XCTAssertEqual(outcome.status, 0)
        let result = try check(schema: "plan.schema.json", [plan])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }

    func testSchemaRejectsWhatTheParserRejects() async throws {
        let fixtures = ["unknown-keys.yml", "wrong-types.yml", "values.yml", "steps.yml", "secrets.yml"]
        for fixture in fixtures {
            let result = try check(schema: "manifest.schema.json", [Fixtures.path(fixture)])
            XCTAssertNotEqual(result.status, 0, "\(fixture) must be rejected by the schema too")
        }
    }

    func testTheManifestSchemaKnowsEveryRobotOfTheCatalog() throws {
        let drift = try ProcessRunner.run("/usr/bin/env", ["python3", PackageRoot.path + "/scripts/robot-catalog/manifest-schema.py", "--check"])
        XCTAssertEqual(drift.status, 0, "the schema's robot part is generated from schemas/robots.json: " + drift.stderr)
        let directory = try TemporaryDirectory(prefix: "schema")
        defer { directory.remove() }
        let good = try directory.write("good.yml", """
            version: 1
            assemblies:
              a:
                inputs: [x]
                steps:
                  ":original": {robot: /upload/handle}
                  thumb: {robot: /image/resize, use: ":original", width: "200", resize_strategy: fit, height: "${fields.h}"}
            """)
        let accepted = try check(schema: "manifest.schema.json", [good])
        XCTAssertEqual(accepted.status, 0, accepted.stdout + accepted.stderr)
        for (name, step) in [
            ("unknown-robot.yml", "{robot: /image/resise}"), ("unknown-parameter.yml", "{robot: /image/resize, widht: 2}"),
            ("enum.yml", "{robot: /image/resize, resize_strategy: fitt}"), ("range.yml", "{robot: /image/resize, width: 0}"),
        ] {
            let bad = try directory.write(name, "version: 1\nassemblies:\n  a:\n    inputs: [x]\n    steps:\n      s: \(step)\n")
            let refused = try check(schema: "manifest.schema.json", [bad])
            XCTAssertNotEqual(refused.status, 0, "\(name) must be refused as you type")
        }
    }
}
