import Basics
import Foundation
import TestSupport
import XCTest

/// Where `plan --out` writes: into a stream the process was given, over a file (keeping its
/// permissions), never through a link elsewhere and never over the manifest or a folder.
final class PlanOutTests: XCTestCase {
    private func project() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "plan-out")
        try directory.write("files/a.bin", "a")
        try directory.write("pipeline.yml", "version: 1\nendpoint: local\nassemblies:\n  j:\n    inputs: [\"files/*.bin\"]\n    steps: {h: {robot: /file/hash, use: \":original\"}}\n")
        return directory
    }

    func testAStreamGivenAsAPathIsWrittenInto() throws {
        let directory = try project()
        defer { directory.remove() }
        // /dev/fd/1 is a link into /proc: renaming over it cannot work, so writing into it must.
        let result = try ProcessRunner.run("/bin/sh", ["-c", "exec \"$0\" plan pipeline.yml --out /dev/fd/1 > plan.txt", ProcessRunner.pipelineExecutable], in: directory.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try String(contentsOfFile: directory.path + "/plan.txt", encoding: .utf8)
        // The plan JSON, then the text plan after it: both written to the one standard output.
        XCTAssertTrue(written.hasPrefix("{\n  \"assemblies\""), written)
        XCTAssertTrue(written.contains("}\nPlan for "), written)
        var info = stat()
        XCTAssertEqual(lstat("/dev/stdout", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFLNK, "/dev/stdout is still a link")
    }

    func testALinkIsReplacedNotWrittenThroughAndPermissionsStay() async throws {
        let directory = try project()
        defer { directory.remove() }
        try directory.write("elsewhere.txt", "keep me")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link.json", withDestinationPath: directory.path + "/elsewhere.txt")
        let linked = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--out", directory.path + "/link.json"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/elsewhere.txt", encoding: .utf8), "keep me")
        var info = stat()
        XCTAssertEqual(lstat(directory.path + "/link.json", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "the link became the plan file")

        try directory.write("private.json", "old")
        XCTAssertEqual(chmod(directory.path + "/private.json", 0o600), 0)
        let replaced = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--out", directory.path + "/private.json"])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertEqual(stat(directory.path + "/private.json", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "a private file stays private")
    }

    func testAPlanFileLeftAsItWasIsKeptAndAnyOtherIsWrittenOver() async throws {
        let directory = try project()
        defer { directory.remove() }
        let out = directory.path + "/plan.json"
        func plan() async throws -> String {
            let result = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--out", out])
            XCTAssertEqual(result.status, 0, result.stderr)
            return try String(contentsOfFile: out, encoding: .utf8)
        }
        func modified() -> timespec {
            var info = stat()
            XCTAssertEqual(stat(out, &info), 0)
            return info.st_mtim
        }
        let first = try await plan()
        let time = modified()
        let again = try await plan()
        XCTAssertEqual(again, first)
        XCTAssertEqual(modified().tv_nsec, time.tv_nsec, "an unchanged plan's file keeps its time")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/manifests/pipeline/written-plans.json"))

        // Edited to the same size, its time put back: written over all the same.
        var edited = Data(first.utf8)
        edited[edited.count - 3] = UInt8(ascii: "x")
        try edited.write(to: URL(fileURLWithPath: out))
        var times = [time, time]
        XCTAssertEqual(utimensat(AT_FDCWD, out, &times, 0), 0)
        let rewritten = try await plan()
        XCTAssertEqual(rewritten, first)

        // Another plan replaces it; the old file copied back, its time kept, is replaced again.
        try FileManager.default.copyItem(atPath: out, toPath: directory.path + "/old.json")
        try directory.write("files/a.bin", "b")
        let second = try await plan()
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(rename(directory.path + "/old.json", out), 0)
        let replaced = try await plan()
        XCTAssertEqual(replaced, second)
    }

    func testTheManifestAndAFolderAreRefused() async throws {
        let directory = try project()
        defer { directory.remove() }
        let before = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        let itself = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--out", directory.path + "/pipeline.yml"])
        XCTAssertEqual(itself.status, 1)
        XCTAssertTrue(itself.stderr.contains("is the manifest itself"), itself.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8), before)
        let folder = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--out", directory.path + "/files"])
        XCTAssertEqual(folder.status, 1)
        XCTAssertTrue(folder.stderr.contains("is a folder") && folder.stderr.contains("plan.json"), folder.stderr)
    }
}
