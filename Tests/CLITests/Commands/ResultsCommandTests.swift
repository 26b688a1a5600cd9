import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline results MANIFEST [SOURCE...]`: the last run's outputs, as a person and a script ask for them.
final class ResultsCommandTests: XCTestCase {
    func testEachSourceIsListedWithItsResultsAndASourceWithoutResultsFails() async throws {
        let project = try ProjectFixture(width: 2)
        let before = await CLIHarness.run(["results", project.manifest])
        XCTAssertEqual(before.status, 1)
        XCTAssertTrue(before.stderr.contains("no results of"), before.stderr)
        let run = await CLIHarness.run(["run", project.manifest, "-q", "--endpoint", "local"])
        XCTAssertEqual(run.status, 0, run.stderr)

        let all = await CLIHarness.run(["results", project.manifest])
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertTrue(all.stdout.hasPrefix("images/a.jpg\n  thumb: build/thumbs/thumb/a.jpg"), all.stdout)
        XCTAssertTrue(all.stdout.contains("images/sub/d.jpg\n  thumb: build/thumbs/thumb/sub/d.jpg"), all.stdout)
        XCTAssertTrue(all.stdout.contains("2x1"), "the result's dimensions: \(all.stdout)")
        XCTAssertFalse(all.stdout.contains("_drafts"))

        let one = await CLIHarness.run(["results", project.manifest, "images/b.jpg", "--json"])
        XCTAssertEqual(one.status, 0, one.stderr)
        let json = try JSONValue.parse(Data(one.stdout.utf8))
        let rows = try XCTUnwrap(json["sources"]?["images/b.jpg"]?.arrayValue)
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?["step"], .string("thumb"))
        XCTAssertEqual(rows.first?["local_path"], .string("build/thumbs/thumb/b.jpg"))
        XCTAssertEqual(rows.first?["width"], .int(2))
        XCTAssertNotNil(rows.first?["url"]?.stringValue)
        XCTAssertEqual(json["sources"]?.objectValue?.count, 1)

        let unknown = await CLIHarness.run(["results", project.manifest, "images/b.jpg", "images/nope.jpg"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stdout.contains("images/nope.jpg: no results in the last run"), unknown.stdout)
        XCTAssertTrue(unknown.stdout.contains("images/b.jpg\n"), "what exists is still shown")

        let misused = await CLIHarness.run(["results", project.manifest, "--out", "x.json"])
        XCTAssertEqual(misused.status, 64)

        // From a subfolder: a source alone finds its manifest (and is printed as this folder sees it), and a path
        // as the manifest's folder names it works too.
        let folder = project.directory.path
        try FileManager.default.createDirectory(atPath: folder + "/.git", withIntermediateDirectories: true)
        let alone = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["results", "b.jpg", "--json"], in: folder + "/images")
        XCTAssertEqual(alone.status, 0, alone.stderr)
        XCTAssertNotNil(try JSONValue.parse(Data(alone.stdout.utf8))["sources"]?["b.jpg"], alone.stdout)
        let fromTop = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["results", "../pipeline.yml", "images/b.jpg"], in: folder + "/images")
        XCTAssertEqual(fromTop.status, 0, fromTop.stdout + fromTop.stderr)

        // A results file that is not one is said to be unreadable, not missing.
        try project.directory.write("results.json", "[1, 2, 3]")
        let damaged = await CLIHarness.run(["results", project.manifest])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stderr.contains("cannot be read as a results file"), damaged.stderr)
    }
}
