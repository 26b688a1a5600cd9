import Basics
import Foundation
import TestSupport
import XCTest

/// A change to one step option, reviewed as a pull request shows it: the plan's Markdown, `diff`
/// against the last run and `diff --base` against the base revision all name the option and
/// what it re-processes (the plan: which steps run, as the others are cached).
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
        XCTAssertTrue(markdown.stdout.contains("**Since the last run:** `thumbnails`: `steps.thumb.width: 320 -> 160` (runs thumb, small: 3 files)"), markdown.stdout)
        XCTAssertTrue(markdown.stdout.contains("0 gone"), "the old Assembly is replaced, not gone: \(markdown.stdout)")

        let text = try pipeline(["plan"], in: directory)
        XCTAssertTrue(text.stdout.contains("~ job thumbnails: steps.thumb.width: 320 -> 160 (runs thumb, small: 3 files)"), text.stdout)

        let diff = try pipeline(["diff", "pipeline.yml"], in: directory)
        XCTAssertTrue(diff.stdout.contains("~ steps.thumb.width: 320 -> 160 (re-processes 3 files in 1 Assembly)"), diff.stdout)
        XCTAssertTrue(diff.stdout.contains("1 to process, 0 cached, 1 replaced, 0 gone."), diff.stdout)

        // A kept plan that no longer reads is said, and the plan goes on by counts.
        try directory.write(".pipeline/manifests/pipeline/last-plan.json", "{not a plan")
        let unreadable = try pipeline(["plan"], in: directory)
        XCTAssertEqual(unreadable.status, 0, unreadable.stderr)
        XCTAssertTrue(unreadable.stderr.contains("cannot be read; changes are shown by counts only"), unreadable.stderr)
        XCTAssertFalse(unreadable.stdout.contains("Since the last run:"), unreadable.stdout)

        // Against the base revision, with no state at all (a fresh CI checkout).
        try FileManager.default.removeItem(atPath: directory.path + "/.pipeline")
        try FileManager.default.removeItem(atPath: directory.path + "/build")
        let base = try pipeline(["diff", "pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(base.status, 0, base.stderr)
        XCTAssertTrue(base.stdout.contains("~ steps.thumb.width: 320 -> 160 (re-processes 3 files in 1 Assembly)"), base.stdout)
        XCTAssertTrue(base.stdout.contains("Plan: 0 to create, 1 to change, 0 to remove"), base.stdout)

        let unknown = try pipeline(["diff", "pipeline.yml", "--base", "no-such-branch"], in: directory)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("'no-such-branch' is not a git revision"), unknown.stderr)
        // A pattern is no revision (git would read it as a pathspec and show nothing).
        let pattern = try pipeline(["diff", "pipeline.yml", "--base", "*"], in: directory)
        XCTAssertTrue(pattern.status == 1 && pattern.stderr.contains("'*' is not a git revision"), pattern.stderr)

        // A loosened policy is shown beside the manifest's change; an error of the base names the base.
        let policy = try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8)
        try directory.write("policy.yml", policy.replacingOccurrences(of: "max: 4000}", with: "max: 9000}"))
        let loosened = try pipeline(["diff", "pipeline.yml", "--base", "HEAD", "--exit-code"], in: directory)
        XCTAssertEqual(loosened.status, 2, loosened.stderr)
        XCTAssertTrue(loosened.stdout.hasPrefix("~ policy policy.yml changed since HEAD\n"), loosened.stdout)
        XCTAssertTrue(loosened.stdout.contains("    +     width: {type: integer, min: 1, max: 9000}"), loosened.stdout)
        try git(["commit", "-qam", "loosen"], in: directory)
        let fixed = try String(contentsOfFile: manifest, encoding: .utf8)
        try fixed.replacingOccurrences(of: "width: 160", with: "widht: 160").write(toFile: manifest, atomically: false, encoding: .utf8)
        try git(["commit", "-qam", "typo"], in: directory)
        try fixed.write(toFile: manifest, atomically: false, encoding: .utf8)
        let broken = try pipeline(["diff", "pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stderr.contains("pipeline.yml@HEAD:"), "the base's error is the base's: \(broken.stderr)")
        let both = try pipeline(["diff", "a.json", "pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(both.status, 64, both.stderr)
    }

    func testABaseOutsideAnyRepositoryIsSaidToBeSo() throws {
        let directory = try TemporaryDirectory(prefix: "no-repository")
        defer { directory.remove() }
        let probe = try ProcessRunner.run("/usr/bin/env", ["git", "rev-parse", "--is-inside-work-tree"], in: directory.path)
        if probe.status == 0 { throw XCTSkip("the temporary folder is inside a git repository here") }
        try directory.write("files/a.txt", "a")
        try directory.write("pipeline.yml", "version: 1\nassemblies:\n  a:\n    inputs: [files/a.txt]\n    steps:\n      hash: {robot: /file/hash, use: \":original\"}\n")
        let outcome = try pipeline(["diff", "pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("is not in a git repository, so --base 'HEAD' names nothing"), outcome.stderr)
    }

    /// A pull request commits a bare repository's files beside a manifest in a subfolder: git's own
    /// search would take that folder for the repository, and its `config` runs a command through a
    /// partial clone's lazy fetch. `--base` uses the work tree's repository or refuses; nothing runs.
    func testABareRepositoryCommittedBesideTheManifestIsNeverUsed() throws {
        let directory = try TemporaryDirectory(prefix: "planted-repository")
        defer { directory.remove() }
        try directory.write("sub/files/a.txt", "a")
        try directory.write("sub/pipeline.yml", "version: 1\nendpoint: local\nassemblies:\n  a:\n    inputs: [files/a.txt]\n    steps:\n      hash: {robot: /file/hash, use: \":original\"}\n")
        try git(["init", "-q"], in: directory)
        try git(["add", "-A"], in: directory)
        try git(["commit", "-qm", "base"], in: directory)
        let marker = directory.path + "/MARKER"
        let planted = directory.path + "/sub"
        for arguments in [
            ["init", "-q", "--bare", planted], ["--git-dir=" + planted, "config", "core.repositoryformatversion", "1"],
            ["--git-dir=" + planted, "config", "extensions.partialClone", "origin"],
            ["--git-dir=" + planted, "config", "remote.origin.url", "ext::sh -c touch% " + marker],
            ["--git-dir=" + planted, "config", "remote.origin.promisor", "true"], ["--git-dir=" + planted, "config", "protocol.ext.allow", "always"],
        ] { try git(arguments, in: directory) }
        // HEAD names a commit the planted repository lacks: reading it asks the "remote" for it.
        try directory.write("sub/refs/heads/master", String(repeating: "1", count: 40) + "\n")

        let outcome = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["diff", "pipeline.yml", "--base", "HEAD"], in: planted)
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("holds a git repository's own files (HEAD with objects/ and refs/, or commondir) inside the work tree"), outcome.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the planted repository's config ran a command")

        // Nor a worktree's folder (HEAD and commondir), which git also takes for a repository.
        for name in ["config", "objects", "refs"] { try FileManager.default.removeItem(atPath: planted + "/" + name) }
        try directory.write("sub/commondir", "../.git\n")
        let worktree = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["diff", "pipeline.yml", "--base", "HEAD"], in: planted)
        XCTAssertEqual(worktree.status, 1, worktree.stderr)
        XCTAssertTrue(worktree.stderr.contains("or commondir) inside the work tree"), worktree.stderr)

        // A committed link to another repository's folder: its history is not this one's.
        let other = try TemporaryDirectory(prefix: "other-repository")
        defer { other.remove() }
        try other.write("cfg/pipeline.yml", "version: 1\nendpoint: local\nassemblies:\n  a:\n    inputs: [x]\n    allow_empty: true\n    steps: {h: {robot: /file/hash, use: ':original'}}\n")
        try git(["init", "-q"], in: other)
        try git(["add", "-A"], in: other)
        try git(["commit", "-qm", "other"], in: other)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/cfg", withDestinationPath: other.path + "/cfg")
        let linked = try pipeline(["diff", "cfg/pipeline.yml", "--base", "HEAD"], in: directory)
        XCTAssertEqual(linked.status, 1, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("leads out of the work tree"), linked.stderr)

        // Without the planted files, the work tree's own repository answers from the subfolder.
        for name in ["HEAD", "commondir"] { try FileManager.default.removeItem(atPath: planted + "/" + name) }
        let clean = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["diff", "pipeline.yml", "--base", "HEAD"], in: planted)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertTrue(clean.stdout.contains("0 to create, 0 to change, 0 to remove"), clean.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
    }

    func testThePlanEstimatesUsageAndABudgetStopsIt() throws {
        let directory = try TemporaryDirectory(prefix: "usage")
        defer { directory.remove() }
        XCTAssertEqual(try pipeline(["init"], in: directory).status, 0)
        // Two seconds of silence: a media input whose duration ffprobe reads.
        let wav = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import wave, sys
            with wave.open(sys.argv[1], 'wb') as w:
                w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000); w.writeframes(b'\\0\\0' * 16000)
            """, directory.path + "/voice.wav"])
        XCTAssertEqual(wav.status, 0, wav.stderr)
        let manifest = directory.path + "/pipeline.yml"
        try (try String(contentsOfFile: manifest, encoding: .utf8) + """

              voices:
                inputs: [voice.wav]
                steps:
                  hashed: {robot: /file/hash, use: ":original", result: true}

            """).write(toFile: manifest, atomically: false, encoding: .utf8)
        let allowed = try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8)
        try directory.write("policy.yml", allowed.replacingOccurrences(of: "\nrobots:\n", with: "\nrobots:\n  /file/hash:\n    result: {type: boolean}\n"))
        let before = try pipeline(["plan", "--format", "markdown"], in: directory)
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertTrue(before.stdout.contains("| thumbnails | 3 files, 22.2 KB | 3 `/image/optimize`, 3 `/image/resize` | unknown | none |"), before.stdout)
        XCTAssertTrue(before.stdout.contains("| 1 `/file/hash` | unknown | 2s |"), "ffprobe's duration: \(before.stdout)")

        XCTAssertEqual(try pipeline(["run"], in: directory).status, 0)
        // Only what runs is counted: nothing after the run, the thumbnails again once their size changes.
        let cached = try pipeline(["plan"], in: directory)
        XCTAssertTrue(cached.stdout.contains("Usage estimate: nothing runs, every result is cached"), cached.stdout)
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "width: 320", with: "width: 300").write(toFile: manifest, atomically: false, encoding: .utf8)
        let after = try pipeline(["plan"], in: directory)
        XCTAssertTrue(after.stdout.contains("thumbnails: 3 files, 22.2 KB in; 6 robot executions (3 /image/optimize, 3 /image/resize)"), after.stdout)
        XCTAssertTrue(after.stdout.contains("out (measured on the last run)"), after.stdout)
        XCTAssertFalse(after.stdout.contains("  voices: 1 file"), "a cached job counts nothing: \(after.stdout)")
        let json = try JSONValue.parse(Data(try pipeline(["plan", "--format", "json"], in: directory).stdout.utf8))
        XCTAssertEqual(json["summary"]?["usage"]?["robot_executions"], .object(["/image/optimize": .int(3), "/image/resize": .int(3), "/file/hash": .int(1)]))

        let over = try pipeline(["plan", "--max-bytes", "1KB"], in: directory)
        XCTAssertEqual(over.status, 1)
        XCTAssertTrue(over.stderr.contains("more than --max-bytes 1 KB"), over.stderr)
        let policy = try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8)
        XCTAssertTrue(policy.contains("\nlimits:\n"), policy)
        try directory.write("policy.yml", policy.replacingOccurrences(of: "\nlimits:\n", with: "\nlimits:\n  run_size: 10KB\n"))
        let policed = try pipeline(["plan"], in: directory)
        XCTAssertEqual(policed.status, 1, policed.stdout)
        XCTAssertTrue(policed.stderr.contains("more than the policy's limits.run_size of 10 KB"), policed.stderr)
    }
}
