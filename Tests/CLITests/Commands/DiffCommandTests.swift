import Foundation
import Basics
import TestSupport
import XCTest

final class DiffCommandTests: XCTestCase {
    func testOptionChangeShowsOldAndNewValueAndWhatIsReprocessed() async throws {
        let project = try ProjectFixture()
        let plan = project.directory.path + "/plan.json"
        let outcome = await CLIHarness.run(["plan", project.manifest, "--out", plan])
        XCTAssertEqual(outcome.status, 0)
        try project.writeManifest(width: 320)
        let result = await CLIHarness.run(["diff", plan, project.manifest, "--exit-code"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stdout.contains("~ job thumbs\n    ~ steps.thumb.width: 200 -> 320 (re-processes 4 files in 2 Assemblies)\n"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("Plan: 0 to create, 2 to change, 0 to remove, 0 unchanged.\n"), result.stdout)
    }

    func testCraftedPlansPrintNoTerminalEscapes() async throws {
        let project = try ProjectFixture()
        let plan = project.directory.path + "/plan.json"
        let outcome = await CLIHarness.run(["plan", project.manifest, "--out", plan])
        XCTAssertEqual(outcome.status, 0)
        // A plan file from a pull request: its job name sets the terminal's title, a path clears the screen.
        var text = try String(contentsOfFile: plan, encoding: .utf8)
        text = text.replacingOccurrences(of: #""job": "thumbs""#, with: #""job": "thumbs\u001b]0;pwned\u0007\u001b[31m""#)
        text = text.replacingOccurrences(of: #""path": "images/a.jpg""#, with: #""path": "images/\u001b[2Ja.jpg""#)
        let crafted = project.directory.path + "/crafted.json"
        try text.write(toFile: crafted, atomically: true, encoding: .utf8)
        let result = await CLIHarness.run(["diff", plan, crafted])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("+ job thumbs\u{FFFD}]0;pwned\u{FFFD}\u{FFFD}[31m (new)"), result.stdout)
        XCTAssertFalse(result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, result.stdout)
    }

    func testAChangeOfEndpointIsNamedWithEverythingItReprocesses() async throws {
        let project = try ProjectFixture()
        let run = await CLIHarness.run(["run", project.manifest, "-q", "--endpoint", "local"])
        XCTAssertEqual(run.status, 0, run.stderr)
        // The manifest names no endpoint: its runs go to the hosted service, where nothing is cached.
        let moved = await CLIHarness.run(["diff", project.manifest])
        XCTAssertTrue(moved.stdout.contains("~ endpoint local -> https://api2.transloadit.com: the last run's results stay with its endpoint; 2 Assemblies processed again"), moved.stdout)
        XCTAssertTrue(moved.stdout.contains("2 to process, 0 cached"), moved.stdout)
        let json = await CLIHarness.run(["diff", project.manifest, "--json"])
        let parsed = try JSONValue.parse(Data(json.stdout.utf8))
        XCTAssertEqual(parsed["endpoint"]?["from"], .string("local"))
        XCTAssertEqual(parsed["cached"], .int(0))
        // Said where the next run goes, as run --endpoint says it.
        let told = await CLIHarness.run(["diff", project.manifest, "--endpoint", "local"])
        XCTAssertFalse(told.stdout.contains("~ endpoint"), told.stdout)
        XCTAssertTrue(told.stdout.contains("0 to process, 2 cached"), told.stdout)
        // Back on the endpoint that ran it, everything is cached again.
        try project.writeManifest(width: 200, extra: "endpoint: local")
        let same = await CLIHarness.run(["diff", project.manifest])
        XCTAssertFalse(same.stdout.contains("~ endpoint"), same.stdout)
        XCTAssertTrue(same.stdout.contains("0 to process, 2 cached"), same.stdout)
    }

    func testSamePlanHasNoChanges() async throws {
        let project = try ProjectFixture()
        let plan = project.directory.path + "/plan.json"
        let outcome = await CLIHarness.run(["plan", project.manifest, "--out", plan])
        XCTAssertEqual(outcome.status, 0)
        let result = await CLIHarness.run(["diff", plan, project.manifest, "--exit-code"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.hasPrefix("No changes."), result.stdout)
    }

    func testNewAndChangedFilesAreListed() async throws {
        let project = try ProjectFixture()
        let plan = project.directory.path + "/plan.json"
        let outcome = await CLIHarness.run(["plan", project.manifest, "--out", plan])
        XCTAssertEqual(outcome.status, 0)
        try project.directory.write("images/a.jpg", data: TestImages.png(width: 4, height: 4))
        try project.directory.write("images/e.jpg", data: TestImages.png(width: 8, height: 3))
        let result = await CLIHarness.run(["diff", plan, project.manifest, "--json"])
        XCTAssertEqual(result.status, 0, "without --exit-code a diff with changes still succeeds")
        let diff = try JSONValue.parse(Data(result.stdout.utf8))
        XCTAssertEqual(diff["summary"], .object(["create": .int(1), "change": .int(2), "remove": .int(0), "unchanged": .int(0)]))
        let changes = diff["jobs"]?.arrayValue?.first?["change"]?.arrayValue ?? []
        XCTAssertEqual(changes.first?["files_changed"], .array([.string("images/a.jpg")]))
    }

    func testBatchChangeCreatesAndRemoves() async throws {
        let project = try ProjectFixture(batch: "1")
        let plan = project.directory.path + "/plan.json"
        let outcome = await CLIHarness.run(["plan", project.manifest, "--out", plan])
        XCTAssertEqual(outcome.status, 0)
        try project.writeManifest(width: 200, batch: "all")
        let result = await CLIHarness.run(["diff", plan, project.manifest])
        XCTAssertTrue(result.stdout.hasSuffix("Plan: 0 to create, 1 to change, 3 to remove, 0 unchanged.\n"), result.stdout)
    }

    func testBrokenPlanFileIsAnError() async throws {
        let project = try ProjectFixture()
        try project.directory.write("bad.json", "{\"version\": 1, \"assemblies\": 3}")
        let result = await CLIHarness.run(["diff", project.directory.path + "/bad.json", project.manifest])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("[plan.invalid]"), result.stderr)
    }
}
