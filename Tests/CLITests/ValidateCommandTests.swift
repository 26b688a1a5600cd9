import Foundation
import Basics
import TestSupport
import XCTest

final class ValidateCommandTests: XCTestCase {
    func testExampleManifestIsValid() async {
        let result = await CLIHarness.run(["validate", PackageRoot.path + "/examples/site/pipeline.yml"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasSuffix("valid (2 jobs, 3 steps)\n"), result.stdout)
    }

    func testValidateReadsNoInputFiles() async throws {
        let project = try ProjectFixture()
        try project.writeManifest(width: 200, extra: """
              videos:
                inputs: [videos/*.mp4]
                steps: {v: {robot: /image/resize, width: 1}}
            """)
        let outcome = await CLIHarness.run(["validate", project.manifest])
        XCTAssertEqual(outcome.status, 0, "a pattern without matches is a plan-time error")
    }

    func testPolicyFlagOverridesTheManifestPolicyAndJSONReportsFindings() async throws {
        let project = try ProjectFixture()
        try project.directory.write("strict.yml", "version: 1\nrobots: {/image/resize: {width: {max: 100}}}\n")
        let result = await CLIHarness.run(["validate", project.manifest, "--policy", project.directory.path + "/strict.yml", "--json"])
        XCTAssertEqual(result.status, 1)
        let report = try JSONValue.parse(Data(result.stdout.utf8))
        XCTAssertEqual(report["valid"], .bool(false))
        let ids = report["diagnostics"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        XCTAssertEqual(ids, ["policy.option-value", "policy.option-not-allowed", "policy.field-not-allowed"])
    }

    func testBadPolicyFileIsReportedWithItsLocation() async throws {
        let project = try ProjectFixture()
        try project.directory.write("policy.yml", "version: 1\nrobots: {}\nlimts: {}\n")
        let result = await CLIHarness.run(["validate", project.manifest])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("policy.yml:3:1: error: unknown key 'limts' in the policy [policy.unknown-key]"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint: did you mean 'limits'?"), result.stderr)
    }
}
