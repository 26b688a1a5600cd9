import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline policy suggest`: a policy that fits the manifest it was made from, and nothing wider.
final class PolicyCommandTests: XCTestCase {
    func testASuggestedPolicyAllowsItsManifestAndRefusesMore() async throws {
        let directory = try TemporaryDirectory(prefix: "policy-suggest")
        defer { directory.remove() }
        for example in ["site", "media"] {
            let manifest = PackageRoot.path + "/examples/\(example)/pipeline.yml"
            let out = directory.path + "/\(example).policy.yml"
            let suggested = await CLIHarness.run(["policy", "suggest", manifest, "--out", out])
            XCTAssertEqual(suggested.status, 0, suggested.stderr)
            XCTAssertTrue(suggested.stderr.contains("wrote \(out)"), suggested.stderr)
            // The manifest plans cleanly against it, and an independent validator takes it.
            let plan = await CLIHarness.run(["plan", manifest, "--policy", out])
            XCTAssertEqual(plan.status, 0, "\(example): \(plan.stderr)")
            XCTAssertFalse(plan.stderr.contains("policy."), plan.stderr)
            let checked = try ProcessRunner.run(try PythonPeers.require("check-jsonschema"), ["--schemafile", PackageRoot.path + "/schemas/policy.schema.json", out])
            XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
            // Not replaced by a second suggestion.
            let again = await CLIHarness.run(["policy", "suggest", manifest, "--out", out])
            XCTAssertEqual(again.status, 1)
        }
        // Nothing wider than what is used: a width beyond those given is refused.
        let text = try String(contentsOfFile: directory.path + "/site.policy.yml", encoding: .utf8)
        XCTAssertTrue(text.contains("width: {type: integer, min: 120, max: 640}   # given 120, 200, 640"), text)
        XCTAssertTrue(text.contains("fields:\n  allowed: [kind, site]"), text)
        let site = try TemporaryDirectory(prefix: "policy-site")
        defer { site.remove() }
        let manifest = try String(contentsOfFile: PackageRoot.path + "/examples/site/pipeline.yml", encoding: .utf8)
        try site.write("pipeline.yml", manifest.replacingOccurrences(of: "width: 640", with: "width: 800"))
        try FileManager.default.copyItem(atPath: PackageRoot.path + "/examples/site/images", toPath: site.path + "/images")
        let wider = await CLIHarness.run(["plan", site.path + "/pipeline.yml", "--policy", directory.path + "/site.policy.yml"])
        XCTAssertEqual(wider.status, 1, wider.stderr)
        XCTAssertTrue(wider.stderr.contains("must be at most 640"), wider.stderr)
    }
}
