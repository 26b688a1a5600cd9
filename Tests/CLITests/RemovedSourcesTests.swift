import Basics
import Foundation
import TestSupport
import XCTest

/// Nothing of a source that is no longer an input is kept: not its upload (a hard link to it, or a
/// copy) nor its results in the embedded engine's data, even in an Assembly kept for the other
/// sources it batched, nor its downloads; a download folder no job uses any more is emptied, and
/// `gc` says what it removed.
final class RemovedSourcesTests: XCTestCase {
    private static let steps = """
              thumb: {robot: /image/resize, use: ":original", width: 40}
              small: {robot: /image/resize, use: thumb, width: 20, result: true}
        """

    /// Three images in one Assembly (an intermediate step, a result step), downloaded into `out`.
    private func project(download: String = "out") throws -> TemporaryDirectory {
        try TestProject.resizing(
            prefix: "removed-sources", endpoint: "local",
            images: ["a.png": (64, 48), "b.png": (72, 50), "c.png": (80, 60)], steps: Self.steps, batch: "10", download: download)
    }

    private func run(_ directory: TemporaryDirectory) async -> (status: Int32, stdout: String, stderr: String) {
        await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
    }

    /// The regular files below `folder` (not through links): their bytes and inode, by relative path.
    private func files(below folder: String) -> [String: (data: Data, inode: UInt64)] {
        var found: [String: (data: Data, inode: UInt64)] = [:]
        for path in FileManager.default.enumerator(atPath: folder)?.compactMap({ $0 as? String }) ?? [] {
            var info = stat()
            guard lstat(folder + "/" + path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                  let data = FileManager.default.contents(atPath: folder + "/" + path) else { continue }
            found[path] = (data, UInt64(info.st_ino))
        }
        return found
    }

    /// The engine files the results name for `source`, as paths.
    private func resultPaths(_ directory: TemporaryDirectory, source: String) throws -> [String] {
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let entries = results["assemblies"]?.arrayValue ?? []
        let named = entries.flatMap { ($0["results"]?.objectValue ?? [:]).values.flatMap { $0.arrayValue ?? [] } }
        return named.filter { $0["source"]?.stringValue == source }.compactMap { $0["url"]?.stringValue }.compactMap { ResultURLs.path($0, resultsFolder: directory.path) }
    }

    func testADeletedSourceLeavesNoUploadResultOrDownloadAndTheOthersKeepTheirs() async throws {
        let directory = try project()
        defer { directory.remove() }
        let first = await run(directory)
        XCTAssertEqual(first.status, 0, first.stderr)
        let source = directory.path + "/images/c.png"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        var info = stat()
        XCTAssertEqual(lstat(source, &info), 0)
        let inode = UInt64(info.st_ino)
        let made = try resultPaths(directory, source: "images/c.png")
        XCTAssertEqual(made.count, 1)
        let madeBytes = try made.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let engine = directory.path + "/.pipeline/engine"
        XCTAssertTrue(files(below: engine).values.contains { $0.inode == inode || $0.data == bytes }, "the engine holds the source's upload")
        let kept = try ["images/a.png", "images/b.png"].flatMap { try resultPaths(directory, source: $0) }
        let keptDownloads = files(below: directory.path + "/out").filter { $0.key != "small/c.png" }

        try FileManager.default.removeItem(atPath: source)
        let second = await run(directory)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("engine: removed 0 Assemblies, 1 upload and 4 result files that no results name"), second.stderr)
        for (path, file) in files(below: directory.path + "/.pipeline") {
            // (Its inode number, freed, may be a new file's now: a link to it holds its bytes.)
            XCTAssertFalse(file.inode == inode && file.data == bytes, "\(path) is a link to the deleted source")
            XCTAssertNotEqual(file.data, bytes, "\(path) holds the deleted source's bytes")
            XCTAssertFalse(madeBytes.contains(file.data), "\(path) holds a result of the deleted source")
        }
        for (path, file) in files(below: engine) {
            XCTAssertFalse(String(decoding: file.data, as: UTF8.self).contains("c.png"), "\(path) still names the deleted source")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/out/small/c.png"), "its download is gone")

        // The other sources of its Assembly keep their results: cached, and their downloads come back from the engine.
        XCTAssertTrue(kept.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "the others' results stay")
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(plan.stdout.contains("0 to process"), plan.stdout)
        try FileManager.default.removeItem(atPath: directory.path + "/out")
        let again = await run(directory)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasPrefix("Run: 0 completed, 1 cached, 0 failed."), again.stdout)
        let restored = files(below: directory.path + "/out")
        XCTAssertEqual(Set(restored.keys), Set(keptDownloads.keys))
        for (path, file) in keptDownloads { XCTAssertEqual(restored[path]?.data, file.data, path) }
    }

    /// Engine data a CI cache restored from before the source went (the results are current):
    /// `gc` says what it removes, and what a download folder no job uses any more held.
    func testGCSaysWhatItRemoves() async throws {
        let directory = try project()
        defer { directory.remove() }
        let first = await run(directory)
        XCTAssertEqual(first.status, 0, first.stderr)
        let cache = try TemporaryDirectory(prefix: "removed-sources-cache")
        defer { cache.remove() }
        try FileManager.default.copyItem(atPath: directory.path + "/.pipeline/engine", toPath: cache.path + "/engine")
        try FileManager.default.removeItem(atPath: directory.path + "/images/c.png")
        let second = await run(directory)
        XCTAssertEqual(second.status, 0, second.stderr)
        try FileManager.default.removeItem(atPath: directory.path + "/.pipeline/engine")
        try FileManager.default.copyItem(atPath: cache.path + "/engine", toPath: directory.path + "/.pipeline/engine")
        let before = files(below: directory.path + "/.pipeline/engine/assemblies").filter { !$0.key.hasSuffix(".json") }
            .merging(files(below: directory.path + "/.pipeline/engine/results").mapKeys { "results/" + $0 }) { first, _ in first }
        // The manifest now downloads elsewhere: what runs wrote into `out` is no job's.
        let text = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        try text.replacingOccurrences(of: "download: out", with: "download: build").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let outBytes = files(below: directory.path + "/out").values.reduce(0) { $0 + $1.data.count }

        let dry = await CLIHarness.run(["gc", directory.path + "/pipeline.yml", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let after = files(below: directory.path + "/.pipeline/engine/assemblies").filter { !$0.key.hasSuffix(".json") }
            .merging(files(below: directory.path + "/.pipeline/engine/results").mapKeys { "results/" + $0 }) { first, _ in first }
        XCTAssertEqual(after.count, before.count, "a dry run removes nothing")
        let collected = await CLIHarness.run(["gc", directory.path + "/pipeline.yml"])
        XCTAssertEqual(collected.status, 0, collected.stderr)
        let left = files(below: directory.path + "/.pipeline/engine/assemblies").filter { !$0.key.hasSuffix(".json") }
            .merging(files(below: directory.path + "/.pipeline/engine/results").mapKeys { "results/" + $0 }) { first, _ in first }
        let freed = before.filter { left[$0.key] == nil }.values.reduce(Int64(0)) { $0 + Int64($1.data.count) }
        let report = """
            Removed 0 Assemblies, 1 upload and 4 result files that no results name (\(ByteSize(bytes: freed))); kept 1 Assembly.
            Removed 2 downloads from folders no job downloads into (\(ByteSize(bytes: Int64(outBytes)))).

            """
        XCTAssertEqual(dry.stdout, report.replacingOccurrences(of: "Removed", with: "Would remove"))
        XCTAssertEqual(collected.stdout, report)
        XCTAssertEqual(left.count, before.count - 5)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/out"), "the folder it emptied goes")
        let idle = await CLIHarness.run(["gc", directory.path + "/pipeline.yml"])
        XCTAssertEqual(idle.stdout, """
            Removed 0 Assemblies, 0 uploads and 0 result files that no results name (0 B); kept 1 Assembly.
            Removed 0 downloads from folders no job downloads into (0 B).

            """)
        let cached = await run(directory)
        XCTAssertTrue(cached.stdout.hasPrefix("Run: 0 completed, 1 cached, 0 failed."), cached.stdout)
    }

    /// `download:` moved: the old folder's downloads go (a file of the user's there stays), the
    /// new folder holds what a clean run's does (a run with `--download` elsewhere leaves it);
    /// dropped, its downloads go too.
    func testMovingTheDownloadFolderMovesTheDownloads() async throws {
        let directory = try project(download: "out/first")
        defer { directory.remove() }
        let first = await run(directory)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(Set(files(below: directory.path + "/out/first").keys), ["small/a.png", "small/b.png", "small/c.png"])
        try directory.write("out/first/notes.txt", "the user's own")
        let manifest = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        try manifest.replacingOccurrences(of: "download: out/first", with: "download: out/second").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let moved = await run(directory)
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(Set(files(below: directory.path + "/out/first").keys), ["notes.txt"], "only what pipeline wrote goes")

        let clean = try TemporaryDirectory(prefix: "removed-sources-clean")
        defer { clean.remove() }
        for item in ["images", "pipeline.yml"] { try FileManager.default.copyItem(atPath: directory.path + "/" + item, toPath: clean.path + "/" + item) }
        let fresh = await run(clean)
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        let expected = files(below: clean.path + "/out/second"), got = files(below: directory.path + "/out/second")
        XCTAssertEqual(Set(got.keys), Set(expected.keys))
        for (path, file) in expected { XCTAssertEqual(got[path]?.data, file.data, path) }

        // A run with `--download` elsewhere leaves the manifest's own folder as it is.
        let elsewhere = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--download", directory.path + "/elsewhere"])
        XCTAssertEqual(elsewhere.status, 0, elsewhere.stderr)
        XCTAssertEqual(Set(files(below: directory.path + "/out/second").keys), Set(expected.keys))
        XCTAssertEqual(Set(files(below: directory.path + "/elsewhere").keys), Set(expected.keys))

        try manifest.replacingOccurrences(of: "    download: out/first\n", with: "").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let dropped = await run(directory)
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/out/second"), "a folder no job downloads into is emptied, and goes")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/elsewhere"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/out").sorted(), ["first"])
    }
}

private extension Dictionary where Key == String {
    func mapKeys(_ transform: (String) -> String) -> [String: Value] {
        Dictionary(map { (transform($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
