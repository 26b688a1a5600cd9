import Basics
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

    /// The files the schema refuses, of many checked in one run of the validator (each run takes
    /// seconds): those its JSON report names in an error or a parse error.
    private func refused(schema: String, _ files: [String]) throws -> Set<String> {
        let result = try ProcessRunner.run(try validator(), ["--schemafile", PackageRoot.path + "/schemas/\(schema)", "-o", "json"] + files)
        let report = try JSONValue.parse(Data(result.stdout.utf8))
        let named = ((report["errors"]?.arrayValue ?? []) + (report["parse_errors"]?.arrayValue ?? [])).compactMap { $0["filename"]?.stringValue }
        XCTAssertEqual(result.status == 0, named.isEmpty, result.stdout + result.stderr)
        return Set(named)
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
        let fixtures = ["unknown-keys.yml", "wrong-types.yml", "values.yml", "steps.yml", "secrets.yml"].map { Fixtures.path($0) }
        let refused = try refused(schema: "manifest.schema.json", fixtures)
        for fixture in fixtures {
            XCTAssertTrue(refused.contains(fixture), "\(fixture) must be rejected by the schema too")
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
        let bad = try [
            ("unknown-robot.yml", "{robot: /image/resise}"), ("unknown-parameter.yml", "{robot: /image/resize, widht: 2}"),
            ("enum.yml", "{robot: /image/resize, resize_strategy: fitt}"), ("range.yml", "{robot: /image/resize, width: 0}"),
        ].map { name, step in try directory.write(name, "version: 1\nassemblies:\n  a:\n    inputs: [x]\n    steps:\n      s: \(step)\n") }
        let refused = try refused(schema: "manifest.schema.json", [good] + bad)
        XCTAssertFalse(refused.contains(good), "the good manifest is accepted")
        for file in bad {
            XCTAssertTrue(refused.contains(file), "\(file) must be refused as you type")
        }
    }
}
