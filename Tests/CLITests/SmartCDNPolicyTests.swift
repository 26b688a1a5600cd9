import Basics
import Foundation
import TestSupport
import XCTest

/// Smart CDN URLs under the policy's `smart_cdn:` rules, through the built binary: `plan` names
/// each refusal at the manifest's line, `run` signs nothing the policy refuses, and `sign-url
/// --policy` prints nothing it refuses.
final class SmartCDNPolicyTests: XCTestCase {
    private let environment = ["TRANSLOADIT_KEY": "cdn-key", "TRANSLOADIT_SECRET": "cdn-secret-\(UInt32.random(in: 0...UInt32.max))", "GITHUB_ACTIONS": ""]

    private let policy = """
        version: 1
        max_expires_in: 1h
        robots:
          /image/resize: {use: {}, width: {}, result: {}}
        smart_cdn:
          workspaces: [my-app]
          templates: [thumbs]
          params:
            w: {type: integer, min: 1, max: 2000}
        """

    private func project(smartCDN: String, policy: String? = nil) throws -> TemporaryDirectory {
        let directory = try TestProject.resizing(
            prefix: "smart-cdn-policy", endpoint: "local", images: ["beach.png": (64, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16, result: true}", key: "cdn-key",
            extra: "    smart_cdn: \(smartCDN)\npolicy: policy.yml")
        try directory.write("policy.yml", policy ?? self.policy)
        return directory
    }

    private func pipeline(_ arguments: [String], in directory: TemporaryDirectory? = nil) throws -> ProcessResult {
        try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments, in: directory?.path, environment: environment)
    }

    func testPlanRefusesALongLifetimeAnotherWorkspaceAndAnUnlistedParameterAtTheirLines() throws {
        let directory = try project(smartCDN: "{workspace: other-app, template: thumbs, params: {w: 400, quality: 90}, expires_in: 87600h}")
        defer { directory.remove() }
        let plan = try pipeline(["plan", "pipeline.yml"], in: directory)
        XCTAssertEqual(plan.status, 1, plan.stderr)
        for expected in [
            "pipeline.yml:11:28: error: Smart CDN workspace 'other-app' is not allowed",
            "hint: the policy's smart_cdn.workspaces allows: my-app",
            "pipeline.yml:11:74: error: Smart CDN URL parameter 'quality' is not allowed",
            "hint: the policy's smart_cdn.params allows: w",
            "pipeline.yml:11:100: error: Smart CDN URL lifetime 3650d is longer than the allowed 1h",
            "hint: the policy's max_expires_in (smart_cdn has none of its own) is 1h: ask for 1h or less",
        ] {
            XCTAssertTrue(plan.stderr.contains(expected), "missing \(expected) in:\n\(plan.stderr)")
        }
        let allowed = try project(smartCDN: "{workspace: my-app, template: thumbs, params: {w: 400}, expires_in: 1h}")
        defer { allowed.remove() }
        let fine = try pipeline(["plan", "pipeline.yml"], in: allowed)
        XCTAssertEqual(fine.status, 0, fine.stderr)
    }

    func testAHugeLifetimeIsRefusedAtItsLineAndNothingCrashes() throws {
        let directory = try project(smartCDN: "{workspace: my-app, template: thumbs, expires_in: 106751991167300d}")
        defer { directory.remove() }
        for command in ["validate", "plan", "run"] {
            let refused = try pipeline([command, "pipeline.yml"], in: directory)
            XCTAssertEqual(refused.status, 1, "\(command): \(refused.stderr)")
            let expected = "pipeline.yml:11:66: error: 'smart_cdn.expires_in' '106751991167300d' is too long: a duration is at most 36500d (100 years)"
            XCTAssertTrue(refused.stderr.contains(expected), "\(command): missing \(expected) in:\n\(refused.stderr)")
        }
        for expires in ["9300000000000000s", "106751991167300d", "99999999999999999999s", "36501d"] {
            let signed = try pipeline(["sign-url", "my-app", "thumbs", "a.jpg", "--expires", expires])
            XCTAssertEqual(signed.status, 64, signed.stderr)
            XCTAssertEqual(signed.stdout, "")
            XCTAssertTrue(signed.stderr.contains("--expires needs a duration of at most 36500d (100 years), not '\(expires)'"), signed.stderr)
        }
        let longest = try pipeline(["sign-url", "my-app", "thumbs", "a.jpg", "--expires", "36500d"])
        XCTAssertEqual(longest.status, 0, longest.stderr)
        XCTAssertTrue(longest.stdout.contains("&exp="), longest.stdout)
    }

    func testAPolicyWithoutTheSectionRefusesEverySmartCDN() throws {
        let directory = try project(smartCDN: "{workspace: my-app, template: thumbs, expires_in: 1h}", policy: policy.components(separatedBy: "smart_cdn:")[0])
        defer { directory.remove() }
        let plan = try pipeline(["plan", "pipeline.yml"], in: directory)
        XCTAssertEqual(plan.status, 1, plan.stderr)
        XCTAssertTrue(plan.stderr.contains("pipeline.yml:11:5: error: Smart CDN URLs are not allowed by this policy"), plan.stderr)
        XCTAssertTrue(plan.stderr.contains("hint: ask the policy owners for a 'smart_cdn:' section that allows workspace 'my-app' and Template 'thumbs'"), plan.stderr)
    }

    func testARunSignsNoURLThePolicyRefusesAndSignsOneItAllows() throws {
        let directory = try project(smartCDN: "{workspace: my-app, template: thumbs, params: {w: 400}, expires_in: 87600h}")
        defer { directory.remove() }
        let refused = try pipeline(["run", "pipeline.yml"], in: directory)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("error: Smart CDN URL lifetime 3650d is longer than the allowed 1h"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/results.json"), "nothing was run, nothing was signed")
        // The same run within the policy signs its URL, working for the hour asked for.
        let manifest = directory.path + "/pipeline.yml"
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "87600h", with: "1h").write(toFile: manifest, atomically: true, encoding: .utf8)
        let ran = try pipeline(["run", "pipeline.yml"], in: directory)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let url = try XCTUnwrap(results["assemblies"]?.arrayValue?.first?["files"]?.arrayValue?.first?["smart_cdn_url"]?.stringValue, results.serialized())
        let expires = try XCTUnwrap(url.firstMatch(of: /[?&]exp=([0-9]+)/).flatMap { Int64($0.1) })
        XCTAssertTrue((3500...3600).contains(Double(expires) / 1000 - Date().timeIntervalSince1970), url)
    }

    func testSignURLRefusesWhatThePolicyDoesNotAllow() throws {
        let directory = try TemporaryDirectory(prefix: "sign-url-policy")
        defer { directory.remove() }
        let policyPath = try directory.write("policy.yml", policy)
        let cases: [(arguments: [String], error: String, hint: String)] = [
            (["other-app", "thumbs", "a.jpg"], "error: Smart CDN workspace 'other-app' is not allowed", "the policy's smart_cdn.workspaces allows: my-app"),
            (["my-app", "thumbs", "a.jpg", "--expires", "87600h"], "error: Smart CDN URL lifetime 3650d is longer than the allowed 1h", "ask for 1h or less"),
            (["my-app", "thumbs", "a.jpg", "--param", "quality=90"], "error: Smart CDN URL parameter 'quality' is not allowed", "the policy's smart_cdn.params allows: w"),
            (["my-app", "thumbs", "a.jpg", "--param", "w=5000"], "error: Smart CDN URL parameter 'w' must be at most 2000, found 5000", "smart_cdn.params.w"),
        ]
        for (arguments, error, hint) in cases {
            let refused = try pipeline(["sign-url"] + arguments + ["--policy", policyPath])
            XCTAssertEqual(refused.status, 1, refused.stderr)
            XCTAssertEqual(refused.stdout, "", "nothing signed for \(arguments)")
            XCTAssertTrue(refused.stderr.contains(error), "missing \(error) in:\n\(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains(hint), "missing \(hint) in:\n\(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("policy: \(policyPath); nothing was signed"), refused.stderr)
        }
        let allowed = try pipeline(["sign-url", "my-app", "thumbs", "a.jpg", "--param", "w=400", "--expires", "30m", "--policy", policyPath])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stdout.hasPrefix("https://my-app.tlcdn.com/thumbs/a.jpg?auth_key=cdn-key&exp="), allowed.stdout)
        // A policy without the section allows no URL; one that cannot be read stops too.
        let bare = try directory.write("bare.yml", policy.components(separatedBy: "smart_cdn:")[0])
        let none = try pipeline(["sign-url", "my-app", "thumbs", "a.jpg", "--policy", bare])
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertTrue(none.stderr.contains("error: Smart CDN URLs are not allowed by this policy"), none.stderr)
        let missing = try pipeline(["sign-url", "my-app", "thumbs", "a.jpg", "--policy", directory.path + "/missing.yml"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertEqual(missing.stdout, "")
    }
}
