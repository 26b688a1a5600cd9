import Foundation
import TestSupport
import XCTest

/// A change to one step option, reviewed as a pull request shows it: the plan's Markdown, `diff`
/// against the last run and `diff --base` against the base revision all name the option and
/// what it re-processes.
final class ChangeReviewTests: XCTestCase {
    private func pipeline(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments, in: directory.path)
    }

    private func git(_ arguments: [String], in directory: TemporaryDirectory) throws {
        let result = try ProcessRunner.run("/usr/bin/env", ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"] + arguments, in: directory.path)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testAnOptionChangeIsNamedWithWhatItReprocesses() throws {
        let directory = try TemporaryDirectory(prefix: "change-review")
        defer { directory.remove() }
        XCTAssertEqual(try pipeline(["init"], in: directory).status, 0)
        try git(["init", "-q"], in: directory)
        try git(["add", "-A"], in: directory)
        try git(["commit", "-qm", "base"], in: directory)
        XCTAssertEqual(try pipeline(["run"], in: directory).status, 0)
        let manifest = directory.path + "/pipeline.yml"
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "width: 320", with: "width: 160")
            .write(toFile: manifest, atomically: false, encoding: .utf8)

        let markdown = try pipeline(["plan", "--format", "markdown"], in: directory)
        XCTAssertEqual(markdown.status, 0, markdown.stderr)
        XCTAssertTrue(markdown.stdout.contains("**Since the last run:** `thumbnails`: `steps.thumb.width: 320 -> 160` (re-processes 3 files in 1 Assembly)"), markdown.stdout)
        XCTAssertTrue(markdown.stdout.contains("0 gone"), "the old Assembly is replaced, not gone: \(markdown.stdout)")

        let text = try pipeline(["plan"], in: directory)
        XCTAssertTrue(text.stdout.contains("~ job thumbnails: steps.thumb.width: 320 -> 160 (re-processes 3 files in 1 Assembly)"), text.stdout)

        let diff = try pipeline(["diff", "pipeline.yml"], in: directory)
        XCTAssertTrue(diff.stdout.contains("~ steps.thumb.width: 320 -> 160 (re-processes 3 files in 1 Assembly)"), diff.stdout)
        XCTAssertTrue(diff.stdout.contains("1 to process, 0 cached, 1 replaced, 0 gone."), diff.stdout)

        // Against the base revision, with no state at all (a fresh CI checkout).
        try FileManager.default.removeItem(atPath: directory.path + "/.pipeline")
        try FileManager.default.removeItem(atPath: directory.path + "/build")
        let base = try pipeline(["diff", "pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(base.status, 0, base.stderr)
        XCTAssertTrue(base.stdout.contains("~ steps.thumb.width: 320 -> 160 (re-processes 3 files in 1 Assembly)"), base.stdout)
        XCTAssertTrue(base.stdout.contains("Plan: 0 to create, 1 to change, 0 to remove"), base.stdout)

        let unknown = try pipeline(["diff", "pipeline.yml", "--base", "no-such-branch"], in: directory)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("git cannot show './pipeline.yml' at no-such-branch"), unknown.stderr)
        let both = try pipeline(["diff", "a.json", "pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(both.status, 64, both.stderr)
    }
}
