import Foundation
import Basics
import TestSupport
import XCTest

final class ValidateCommandTests: XCTestCase {
    /// A secret written into a manifest is refused at its place without being shown: the source
    /// line that holds it never reaches the terminal, a CI log or the GitHub annotations.
    func testASecretInTheManifestIsRefusedWithoutQuotingIt() async throws {
        let directory = try TemporaryDirectory(prefix: "validate-secret")
        defer { directory.remove() }
        let (authSecret, storeSecret) = ("auth-secret-5f3a9c", "store-secret-8e1d2b")
        try directory.write("pipeline.yml", """
            version: 1
            auth:
              key: 0123456789abcdef0123456789abcdef01234567
              secret: \(authSecret)
            assemblies:
              thumbs:
                inputs: ["*.png"]
                allow_empty: true
                steps:
                  store: {robot: /s3/store, use: ":original", key: AKIAEXAMPLE, secret: \(storeSecret), bucket: site}
            """)
        for environment in [[:], ["GITHUB_ACTIONS": "true"]] {
            let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"], environment: environment)
            XCTAssertEqual(result.status, 1)
            XCTAssertTrue(result.stderr.contains("pipeline.yml:3:8: error: 'auth.key' looks like an Auth Secret"), result.stderr)
            XCTAssertTrue(result.stderr.contains("pipeline.yml:4:3: error: 'auth' must not contain the Auth Secret"), result.stderr)
            XCTAssertTrue(result.stderr.contains("pipeline.yml:10:69: error: step 'store' writes its 'secret' into the manifest"), result.stderr)
            for secret in [authSecret, storeSecret, "0123456789abcdef0123456789abcdef01234567"] {
                XCTAssertFalse(result.stderr.contains(secret) || result.stdout.contains(secret), "\(secret) shown: \(result.stderr)")
            }
        }
    }

    func testTheLocalEngineRefusesParametersItDoesNotImplementAtTheirLines() async throws {
        let directory = try TemporaryDirectory(prefix: "validate-local")
        defer { directory.remove() }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              thumbs:
                inputs: ["*.png"]
                allow_empty: true
                steps:
                  thumb:
                    robot: /image/resize
                    use: ":original"
                    width: 100
                    colorspace: Gray
                    blur: "0x8"
            """)
        let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:12:9: error: the local engine's /image/resize does not implement 'colorspace'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:13:9: error: the local engine's /image/resize does not implement 'blur'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("it implements background, crop"), result.stderr)
        // Against another endpoint the same step is fine: the service implements them.
        let text = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        try directory.write("remote.yml", text.replacingOccurrences(of: "endpoint: local", with: "endpoint: https://api.example.com"))
        let remote = await CLIHarness.run(["validate", directory.path + "/remote.yml"])
        XCTAssertFalse(remote.stderr.contains("not-local-parameter"), remote.stderr)
        // Without an endpoint in the manifest, $TRANSLOADIT_ENDPOINT or --endpoint decides, as for run.
        try directory.write("unnamed.yml", text.replacingOccurrences(of: "endpoint: local\n", with: ""))
        let checked = await CLIHarness.run(["validate", directory.path + "/unnamed.yml", "--endpoint", "local"])
        XCTAssertTrue(checked.status == 1 && checked.stderr.contains("does not implement 'blur'"), checked.stderr)
        for (arguments, environment) in [([String](), ["TRANSLOADIT_ENDPOINT": "local"]), (["--endpoint", "local"], [:])] {
            let unnamed = await CLIHarness.run(["plan", directory.path + "/unnamed.yml"] + arguments, environment: environment)
            XCTAssertEqual(unnamed.status, 1, "\(arguments) \(environment)")
            XCTAssertTrue(unnamed.stderr.contains("the local engine's /image/resize does not implement 'blur'"), unnamed.stderr)
        }
        // A number in quotes is refused where only numbers are taken, as the policy refuses it.
        try directory.write("quoted.yml", text.replacingOccurrences(of: "endpoint: local", with: "endpoint: https://api.example.com")
            .replacingOccurrences(of: "width: 100", with: "width: \"240\"").replacingOccurrences(of: "            colorspace: Gray\n", with: ""))
        let quoted = await CLIHarness.run(["validate", directory.path + "/quoted.yml"])
        XCTAssertEqual(quoted.status, 1)
        XCTAssertTrue(quoted.stderr.contains("found the string '240' (write it without quotes)"), quoted.stderr)
        let robots = await CLIHarness.run(["robots", "/image/resize"])
        XCTAssertTrue(robots.stdout.contains("local engine: no") && robots.stdout.contains("local engine: yes"), robots.stdout)
    }

    /// Shape, robot and policy problems are said together, so fixing the first ones reveals no
    /// more; a YAML syntax error is said alone, and `plan` says it too.
    func testPolicyProblemsAreReportedWithTheManifestsErrors() async throws {
        let directory = try TemporaryDirectory(prefix: "validate-all")
        defer { directory.remove() }
        try directory.write("policy.yml", "version: 1\nrobots:\n  /image/resize: {}\n")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            policy: policy.yml
            assemblies:
              thumbs:
                inputs: ["*.jpg"]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 200, heigth: 10}
                  hash: {robot: /file/hash, use: ":original"}
                  sneaky: {robot: /image/resizee, use: ":original"}
            """)
        for command in ["validate", "plan"] {
            let result = await CLIHarness.run([command, directory.path + "/pipeline.yml"])
            XCTAssertEqual(result.status, 1, command)
            XCTAssertTrue(result.stderr.contains("pipeline.yml:8:67: error: /image/resize has no parameter 'heigth'"), result.stderr)
            XCTAssertTrue(result.stderr.contains("pipeline.yml:9:21: error: robot /file/hash is not allowed (step 'hash') [policy.robot-not-allowed]"), result.stderr)
            XCTAssertTrue(result.stderr.contains("pipeline.yml:10:23: error: step 'sneaky' names an unknown robot '/image/resizee'"), result.stderr)
            // An unknown robot is not also one the policy refuses.
            XCTAssertFalse(result.stderr.contains("/image/resizee is not allowed"), result.stderr)
            XCTAssertTrue(result.stderr.contains("3 errors"), result.stderr)
        }
        try directory.write("broken.yml", "version: 1\nassemblies: {a: [1}\n")
        let broken = await CLIHarness.run(["validate", directory.path + "/broken.yml"])
        XCTAssertTrue(broken.status == 1 && broken.stderr.contains("[yaml.syntax]") && broken.stderr.contains("1 error"), broken.stderr)
        let help = await CLIHarness.run(["validate", "--help"])
        XCTAssertTrue(help.stdout.contains("an error in the YAML itself (its syntax, a duplicate key) is\nreported alone"), help.stdout)
    }

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
        // `result: true` is structure, which every policy allows under an allowed robot.
        XCTAssertEqual(ids, ["policy.option-value", "policy.field-not-allowed"])
    }

    func testBadPolicyFileIsReportedWithItsLocation() async throws {
        let project = try ProjectFixture()
        try project.directory.write("policy.yml", "version: 1\nrobots: {}\nlimts: {}\n")
        let result = await CLIHarness.run(["validate", project.manifest])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("policy.yml:3:1: error: unknown key 'limts' in the policy [policy.unknown-key]"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint: did you mean 'limits'?"), result.stderr)
    }

    /// With the local engine, every enumerated value is checked against what it runs, at the
    /// value, with the value meant; another endpoint takes them (the service runs more); and
    /// `ignore_errors` is taken by every local robot.
    func testTheLocalEnginesValuesAreCheckedWhereTheyAreWritten() async throws {
        let directory = try TemporaryDirectory(prefix: "validate-values")
        defer { directory.remove() }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              media:
                inputs: ["*.png"]
                allow_empty: true
                steps:
                  web: {robot: /image/resize, use: ":original", width: 100, format: wepb, ignore_errors: [meta, execute]}
                  clip: {robot: /video/encode, use: ":original", preset: hls/4k}
                  sums: {robot: /file/hash, use: ":original", algorithm: sha224}
            """)
        let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:8:73: error: the local engine's /image/resize does not run format 'wepb'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'webp'?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:9:62: error: the local engine's /video/encode does not run preset 'hls/4k'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("does not run algorithm 'sha224'") && result.stderr.contains("it runs md5, sha1, sha256, sha384, sha512"), result.stderr)
        XCTAssertFalse(result.stderr.contains("does not implement 'ignore_errors'"), "every local robot takes ignore_errors: \(result.stderr)")
        let text = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        try directory.write("remote.yml", text.replacingOccurrences(of: "endpoint: local", with: "endpoint: https://api.example.com"))
        let remote = await CLIHarness.run(["validate", directory.path + "/remote.yml"])
        XCTAssertFalse(remote.stderr.contains("not-local-value"), remote.stderr)
        // A value the service refuses too does not hide the local engine's findings, nor is it said twice.
        try directory.write("both.yml", text.replacingOccurrences(of: "width: 100,", with: "width: 100, resize_strategy: fil,"))
        let both = await CLIHarness.run(["validate", directory.path + "/both.yml"])
        XCTAssertTrue(both.stderr.contains("found 'fil'") && both.stderr.contains("does not run format 'wepb'"), both.stderr)
        XCTAssertEqual(both.stderr.components(separatedBy: "'fil'").count - 1, 1, both.stderr)
    }
}
