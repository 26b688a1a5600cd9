import Foundation
import Basics
import Crypto
import TestSupport
import XCTest

final class PlanCommandTests: XCTestCase {
    func testStepsAreListedInTheManifestsOrder() async throws {
        let directory = try TemporaryDirectory(prefix: "plan-order")
        defer { directory.remove() }
        try directory.write("files/a.bin", "a")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              j:
                inputs: ["files/*.bin"]
                steps:
                  zeta: {robot: /file/hash, use: ":original"}
                  alpha: {robot: /file/hash, use: zeta}
            """)
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(plan.stdout.contains("steps: zeta (/file/hash), alpha (/file/hash)"), plan.stdout)
    }

    func testTemporaryResultsOnTheHostedServiceAreWarnedOfInTextMarkdownAndJSON() async throws {
        let directory = try TemporaryDirectory(prefix: "plan-temporary")
        defer { directory.remove() }
        try directory.write("files/a.bin", "a")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: https://api2.transloadit.com
            auth: {key: k}
            assemblies:
              hashes:
                inputs: ["files/*.bin"]
                steps:
                  hash: {robot: /file/hash, use: ":original"}
            """)
        let manifest = directory.path + "/pipeline.yml"
        let text = await CLIHarness.run(["plan", manifest])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stderr.contains("job 'hashes' neither stores its results"), text.stderr)
        let markdown = await CLIHarness.run(["plan", manifest, "--format", "markdown"])
        XCTAssertTrue(markdown.stdout.contains("job 'hashes' neither stores its results"), markdown.stdout)
        let json = await CLIHarness.run(["plan", manifest, "--json"])
        let warnings = try XCTUnwrap(JSONValue.parse(Data(json.stdout.utf8))["warnings"]?.arrayValue)
        XCTAssertEqual(warnings.compactMap { $0["id"]?.stringValue }, ["plan.temporary-results"])
        XCTAssertEqual(warnings.first?["line"]?.intValue, 5)
        // The same in the plan file, which its schema accepts.
        let out = directory.path + "/plan.json"
        _ = await CLIHarness.run(["plan", manifest, "--out", out])
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), json.stdout)
        let validator = try PythonPeers.require("check-jsonschema")
        let checked = try ProcessRunner.run(validator, ["--schemafile", PackageRoot.path + "/schemas/plan.schema.json", out])
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
    }

    func testTheManifestIsFoundInAParentFolderUpToTheRepositoryRootAndNamed() throws {
        let project = try ProjectFixture()
        let folder = (project.manifest as NSString).deletingLastPathComponent
        let deep = folder + "/content/2026/12"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        // Outside a repository only the folder itself is looked in.
        // Outside a repository only the folder itself is looked in, and the error says why the
        // parent's manifest was not taken.
        let outside = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan"], in: deep)
        XCTAssertEqual(outside.status, 64, outside.stderr)
        XCTAssertTrue(outside.stderr.contains("there is ../../../pipeline.yml, but outside a git repository only this folder is searched"), outside.stderr)
        try FileManager.default.createDirectory(atPath: folder + "/.git", withIntermediateDirectories: true)
        let inside = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan"], in: deep)
        XCTAssertEqual(inside.status, 0, inside.stderr)
        XCTAssertTrue(inside.stderr.contains("pipeline: using ../../../pipeline.yml"), inside.stderr)
        XCTAssertTrue(inside.stdout.contains("Plan for 'fixture'"), inside.stdout)
        // diff finds it as plan does: with no argument, the manifest against its last run.
        let diff = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["diff"], in: deep)
        XCTAssertEqual(diff.status, 0, diff.stderr)
        XCTAssertTrue(diff.stderr.contains("pipeline: using ../../../pipeline.yml"), diff.stderr)
        // The repository's root is as far as it goes: a manifest above it is not taken.
        try FileManager.default.createDirectory(atPath: deep + "/.git", withIntermediateDirectories: true)
        let nested = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan"], in: deep)
        XCTAssertEqual(nested.status, 64, nested.stderr)
        XCTAssertTrue(nested.stderr.contains("no pipeline.yml in this folder or a parent folder of its repository"), nested.stderr)
        let help = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["help", "plan"])
        XCTAssertTrue(help.stdout.contains("Default: pipeline.yml in"), help.stdout)
    }

    func testTheManifestDefaultsToPipelineYmlHereOrInANamedFolder() throws {
        let project = try ProjectFixture()
        let folder = (project.manifest as NSString).deletingLastPathComponent
        XCTAssertEqual((project.manifest as NSString).lastPathComponent, "pipeline.yml")
        let here = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan"], in: folder)
        XCTAssertEqual(here.status, 0, here.stderr)
        let named = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan", folder])
        XCTAssertEqual(named.status, 0, named.stderr)
        // The same plan; only the header names the manifest as it was found.
        XCTAssertEqual(here.stdout.split(separator: "\n").dropFirst(), named.stdout.split(separator: "\n").dropFirst())
        XCTAssertTrue(named.stdout.hasPrefix("Plan for 'fixture' (\(folder)/pipeline.yml)"), named.stdout)
        let empty = try TemporaryDirectory()
        defer { empty.remove() }
        let nowhere = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan"], in: empty.path)
        XCTAssertEqual(nowhere.status, 64)
        XCTAssertTrue(nowhere.stderr.contains("missing MANIFEST (and there is no pipeline.yml in this folder)"), nowhere.stderr)
    }

    func testPlanSummaryListsJobsAssembliesAndFiles() async throws {
        let project = try ProjectFixture()
        let result = await CLIHarness.run(["plan", project.manifest])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(result.stdout.contains("job thumbs: 2 Assemblies, 4 files, 482 B\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("images/a.jpg, images/b.jpg"), result.stdout)
        XCTAssertFalse(result.stdout.contains("_drafts"), "excluded by '!images/_drafts/**'")
        XCTAssertTrue(result.stdout.contains("Plan: 2 Assemblies, 4 files, 482 B in 1 job.\nUsage estimate:\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("  thumbs: 4 files, 482 B in; 4 robot executions (4 /image/resize); output unknown until a run measures it\n"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("  counted by a metered service: about 482 B (input, and output where the last run measured it)\n"), result.stdout)
    }

    func testPlanJSONIsByteIdenticalAcrossRunsAndMatchesOut() async throws {
        let project = try ProjectFixture()
        let out = project.directory.path + "/plan.json"
        let first = await CLIHarness.run(["plan", project.manifest, "--json"])
        let second = await CLIHarness.run(["plan", project.manifest, "--out", out])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(second.status, 0, second.stderr)
        let written = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertEqual(first.stdout, written)
        let plan = try JSONValue.parse(Data(written.utf8))
        let files = plan["assemblies"]?.arrayValue?.flatMap { $0["files"]?.arrayValue ?? [] } ?? []
        XCTAssertEqual(files.compactMap { $0["path"]?.stringValue }, ["images/a.jpg", "images/b.jpg", "images/c.jpg", "images/sub/d.jpg"])
        XCTAssertEqual(files.first?["sha256"]?.stringValue, SHA256.hex([UInt8](TestImages.png(width: 4, height: 3))), "sha256 of images/a.jpg")
        XCTAssertEqual(plan["summary"]?["files"], .int(4))
        XCTAssertEqual(plan["summary"]?["bytes"], .int(482))
        XCTAssertEqual(plan["summary"]?["usage"]?["jobs"]?.objectValue?.count, 1)
    }

    func testPlanJSONMatchesGoldenForTheExample() async throws {
        let result = await CLIHarness.run(["plan", "examples/site/pipeline.yml", "--json"].map { $0 == "examples/site/pipeline.yml" ? PackageRoot.path + "/" + $0 : $0 })
        XCTAssertEqual(result.status, 0, result.stderr)
        let normalized = result.stdout.replacingOccurrences(of: PackageRoot.path + "/", with: "")
        try Golden.assertMatches(normalized, file: Fixtures.path("golden/example-plan.json", target: "CLITests"))
    }

    func testPolicyViolationIsLocatedAtTheManifestValue() async throws {
        let project = try ProjectFixture(width: 5000)
        let result = await CLIHarness.run(["plan", project.manifest])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains(
            "pipeline.yml:12:16: error: option 'width' of /image/resize must be at most 4000, found 5000 (step 'thumb') [policy.option-value]"),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("note: policy: \(project.directory.path)/policy.yml"), result.stderr)
    }

    func testPatternWithoutMatchesIsAnErrorAtThePattern() async throws {
        let project = try ProjectFixture()
        try project.writeManifest(width: 200, extra: """
              videos:
                inputs: [videos/*.mp4]
                steps: {v: {robot: /image/resize, width: 1}}
            """)
        let result = await CLIHarness.run(["plan", project.manifest, "--json"])
        XCTAssertEqual(result.status, 1)
        let report = try JSONValue.parse(Data(result.stdout.utf8))
        let diagnostic = try XCTUnwrap(report["diagnostics"]?.arrayValue?.first { $0["severity"] == .string("error") })
        XCTAssertEqual(diagnostic["id"], .string("plan.no-match"))
        XCTAssertEqual(diagnostic["line"], .int(17))
        XCTAssertEqual(diagnostic["column"], .int(14))
        XCTAssertEqual(diagnostic["message"], .string("pattern 'videos/*.mp4' matches no files"))
    }

    func testOutIntoMissingFolderFailsWithHint() async throws {
        let project = try ProjectFixture()
        let result = await CLIHarness.run(["plan", project.manifest, "--out", project.directory.path + "/no/such/plan.json"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("no/such/plan.json"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint:"), result.stderr)
    }

    func testGitHubActionsAnnotationsAreAdded() async throws {
        let project = try ProjectFixture(width: 0)
        let result = await CLIHarness.run(["plan", project.manifest], environment: ["GITHUB_ACTIONS": "true"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("::error file=\(project.manifest),line=12,col=16::'width' of step 'thumb' must be at least 1"), result.stderr)
    }
}

/// `plan --format markdown`: what a pull request shows, before and after a run on the local engine.
final class PlanMarkdownTests: XCTestCase {
    func testMarkdownShowsJobsWhatChangesSinceTheLastRunAndEscapesNames() async throws {
        let directory = try TemporaryDirectory(prefix: "markdown")
        defer { directory.remove() }
        for name in ["a.txt", "b|c`d*.txt", "e.txt"] { try directory.write("files/" + name, name) }
        let manifest = """
            version: 1
            name: review
            endpoint: local
            assemblies:
              hashes:
                inputs: [files/*.txt]
                batch: 1
                steps: {h: {robot: /file/hash, use: ':original'}}
            """
        try directory.write("pipeline.yml", manifest)
        let path = directory.path + "/pipeline.yml"
        let before = await CLIHarness.run(["plan", path, "--format", "markdown"])
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertTrue(before.stdout.hasPrefix("### Plan for `review`"), before.stdout)
        XCTAssertTrue(before.stdout.contains("**3 Assemblies to process**, 0 cached from the last run, 0 gone"), before.stdout)
        XCTAssertTrue(before.stdout.contains("| hashes | h (`/file/hash`) | 3 | 3 | 3 |"), before.stdout)
        XCTAssertTrue(before.stdout.contains("`` files/b\\|c`d*.txt ``"), "a name cannot end its code span or break the table: \(before.stdout)")
        for line in before.stdout.split(separator: "\n") where line.hasPrefix("| + ") {
            XCTAssertEqual(line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count, 7, "one row, six cells: \(line)")
        }

        let run = await CLIHarness.run(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        try directory.write("files/new.txt", "new")
        try directory.write("files/new|x`y.txt", "new")
        try directory.write("files/e.txt", "changed")
        try FileManager.default.removeItem(atPath: directory.path + "/files/a.txt")
        let after = await CLIHarness.run(["plan", path, "--format", "markdown"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(after.stdout.contains("**3 Assemblies to process**, 1 cached from the last run, 1 gone"), "e.txt's Assembly is replaced, a.txt's gone: \(after.stdout)")
        XCTAssertTrue(after.stdout.contains("`files/new.txt`"), after.stdout)
        XCTAssertTrue(after.stdout.contains("no longer in the plan"), after.stdout)
        // Which files changed, not only which Assemblies.
        XCTAssertTrue(after.stdout.contains("Files since the last run: 2 added, 1 changed, 1 removed"), after.stdout)
        for line in ["- removed `files/a.txt`", "- changed `files/e.txt`", "- added `files/new.txt`", "- added `` files/new|x`y.txt ``"] {
            XCTAssertTrue(after.stdout.contains(line), "\(line): \(after.stdout)")
        }

        // A plan that fails still tells the summary why.
        try directory.write("pipeline.yml", manifest.replacingOccurrences(of: "batch: 1", with: "batch: -1"))
        let failed = await CLIHarness.run(["plan", path, "--format", "markdown"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stdout.hasPrefix("### Plan for `\(path)`: failed") && failed.stdout.contains("pipeline.yml:"), failed.stdout)

        let both = await CLIHarness.run(["plan", path, "--json", "--format", "markdown"])
        XCTAssertEqual(both.status, 64, both.stderr)
        let unknown = await CLIHarness.run(["plan", path, "--format", "html"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("text, json or markdown"), unknown.stderr)
    }
}
