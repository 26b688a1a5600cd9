import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline policy suggest`: a policy that fits the manifest it was made from, with a stated margin and no more.
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
        // Room to grow, and no more: a width beyond the margin above those given is refused.
        let text = try String(contentsOfFile: directory.path + "/site.policy.yml", encoding: .utf8)
        XCTAssertTrue(text.contains("width: {type: integer, min: 1, max: 2560}   # given 120, 200, 640; 4x room, from the robot's least"), text)
        XCTAssertTrue(text.contains("fields:\n  allowed: [kind, site]"), text)
        let site = try TemporaryDirectory(prefix: "policy-site")
        defer { site.remove() }
        let manifest = try String(contentsOfFile: PackageRoot.path + "/examples/site/pipeline.yml", encoding: .utf8)
        try site.write("pipeline.yml", manifest.replacingOccurrences(of: "width: 640", with: "width: 3000"))
        try FileManager.default.copyItem(atPath: PackageRoot.path + "/examples/site/images", toPath: site.path + "/images")
        let wider = await CLIHarness.run(["plan", site.path + "/pipeline.yml", "--policy", directory.path + "/site.policy.yml"])
        XCTAssertEqual(wider.status, 1, wider.stderr)
        XCTAssertTrue(wider.stderr.contains("must be at most 2560"), wider.stderr)
    }

    /// A job with `smart_cdn:` gets a `smart_cdn` section that allows exactly its workspace,
    /// Template, parameters and lifetime: the manifest plans under it, a longer lifetime does not.
    func testASuggestedPolicyAllowsTheJobsSmartCDNURLsAndNoMore() async throws {
        let directory = try TestProject.resizing(
            prefix: "policy-smart-cdn", endpoint: "local", images: ["a.png": (32, 24)],
            steps: "      small: {robot: /image/resize, use: \":original\", width: 16}",
            extra: "    smart_cdn: {workspace: my-app, template: thumbs, params: {w: 400, fit: crop}, expires_in: 2h}")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml", out = directory.path + "/policy.yml"
        let suggested = await CLIHarness.run(["policy", "suggest", manifest, "--out", out])
        XCTAssertEqual(suggested.status, 0, suggested.stderr)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(text.contains("smart_cdn:\n  workspaces: [my-app]\n  templates: [thumbs]\n"), text)
        XCTAssertTrue(text.contains("  max_expires_in: 2h"), text)
        let plan = await CLIHarness.run(["plan", manifest, "--policy", out])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let longer = try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "expires_in: 2h", with: "expires_in: 3h")
        try longer.write(toFile: manifest, atomically: true, encoding: .utf8)
        let refused = await CLIHarness.run(["plan", manifest, "--policy", out])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("policy.smart-cdn-lifetime"), refused.stderr)
    }

    func testAProblemBehindAnAnchorIsSaidOnceAtTheAnchorNamingTheStepsThatUseIt() async throws {
        let directory = try TemporaryDirectory(prefix: "policy-anchor")
        defer { directory.remove() }
        try directory.write("images/a.png", data: TestImages.png(width: 8, height: 6))
        try directory.write("policy.yml", "version: 1\nrobots:\n  /image/resize:\n    width: {type: integer, max: 200}\n")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            policy: policy.yml
            assemblies:
              a:
                inputs: ["images/*.png"]
                steps:
                  one: &resize
                    robot: /image/resize
                    use: ":original"
                    width: 300
                  two: {<<: *resize, height: 20}
              b:
                inputs: ["images/*.png"]
                steps:
                  three: *resize
            """)
        for command in ["validate", "plan"] {
            let result = await CLIHarness.run([command, directory.path + "/pipeline.yml"])
            XCTAssertEqual(result.status, 1)
            XCTAssertEqual(result.stderr.components(separatedBy: "must be at most 200").count - 1, 1, "once: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("pipeline.yml:11:"), "at the anchor: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("(steps 'one', 'two', 'three')"), result.stderr)
            XCTAssertTrue(result.stderr.contains("used by 3 steps (an anchor and its aliases"), result.stderr)
            // What only one step has is said for that step.
            XCTAssertTrue(result.stderr.contains("option 'height' of /image/resize is not allowed (step 'two')"), result.stderr)
        }
        // The manifest's own checks too: a misspelt key behind an anchor is one error, not one per use and engine.
        try directory.write("typo.yml", """
            version: 1
            endpoint: local
            assemblies:
              a:
                inputs: ["images/*.png"]
                steps:
                  s1: &base {robot: /image/resize, use: ":original", widht: 5}
                  s2: {<<: *base}
            """)
        let typo = await CLIHarness.run(["validate", directory.path + "/typo.yml"])
        XCTAssertEqual(typo.status, 1)
        XCTAssertEqual(typo.stderr.components(separatedBy: "error:").count - 1, 1, typo.stderr)
        XCTAssertTrue(typo.stderr.contains("has no parameter 'widht' (steps 's1', 's2')"), typo.stderr)
    }
}
