import Basics
import Foundation
import TestSupport
import XCTest

/// `run --watch` through the binary: new and changed files and manifest edits run again,
/// editors' save patterns run once, unrelated files and the run's own outputs run nothing, folders
/// made later and files written during a run are not missed, and Ctrl-C stops it with exit 130.
final class WatchTests: XCTestCase {
    /// Starts `pipeline run pipeline.yml --watch` in `directory`; its standard error is collected.
    private func startWatching(in directory: TemporaryDirectory, manifest: String = "pipeline.yml") throws -> (Process, WatchOutput) {
        let session = try WatchSession(in: directory.path, manifest: manifest)
        return (session.process, session.output)
    }

    func testAFolderMadeLaterAndFilesWrittenDuringARunAreNotMissed() async throws {
        let directory = try TemporaryDirectory(prefix: "watch-later")
        defer { directory.remove() }
        try directory.write("files/a.txt", "a")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              hashes:
                inputs: [files/*.txt, incoming/new/*.txt]
                batch: 1
                allow_empty: true
                steps: {h: {robot: /file/hash, use: ':original'}}
            """)
        let (process, collected) = try startWatching(in: directory)
        defer { if process.isRunning { process.terminate() } }
        func waitFor(_ needle: String, count: Int, _ what: String) async {
            let seen = await eventually(within: .seconds(30)) { collected.count(needle) >= count }
            XCTAssertTrue(seen, "\(what): \(collected.value)")
        }
        await waitFor("pipeline: watching", count: 1, "the first run")
        // The folder did not exist when watching began: it is waited for two levels up.
        try directory.write("incoming/new/b.txt", "b")
        await waitFor("completed, ", count: 2, "a file in a folder made later runs")
        // A file written as soon as a run starts is either in that run or starts the next one.
        try directory.write("files/c.txt", "c")
        await waitFor("pipeline: added ", count: 2, "the change")
        try directory.write("files/d.txt", "d")
        await waitFor("completed, ", count: 4, "nothing written during a run is missed")

        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143, "SIGTERM: 128 + 15")
    }

    func testPointingALinkedInputFolderElsewhereRunsAgain() async throws {
        let directory = try TemporaryDirectory(prefix: "watch-link")
        defer { directory.remove() }
        try directory.write("first/a.txt", "a")
        try directory.write("second/b.txt", "b")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/linked", withDestinationPath: "first")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              hashes:
                inputs: [linked/*.txt]
                steps: {h: {robot: /file/hash, use: ':original'}}
            """)
        let (process, collected) = try startWatching(in: directory)
        defer { if process.isRunning { process.terminate() } }
        let started = await eventually(within: .seconds(30)) { collected.count("pipeline: watching") >= 1 }
        XCTAssertTrue(started, collected.value)
        // The way `ln -sfn` repoints a link: a new link renamed over the old one.
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/linked.new", withDestinationPath: "second")
        XCTAssertEqual(rename(directory.path + "/linked.new", directory.path + "/linked"), 0)
        let ran = await eventually(within: .seconds(30)) { collected.count("completed, ") >= 2 }
        XCTAssertTrue(ran, "the new target's file runs: \(collected.value)")
        process.interrupt()
        process.waitUntilExit()
    }

    /// Two links to `.` and one to a system folder inside a watched folder: each folder is watched
    /// once, nothing outside the project is, and Ctrl-C stops it at once.
    func testLinkLoopsAndLinksOutOfTheProjectAreNotWalked() async throws {
        let directory = try TemporaryDirectory(prefix: "watch-loops")
        defer { directory.remove() }
        try directory.write("files/a.txt", "a")
        try directory.write("files/sub/b.txt", "b")
        for (name, target) in [("l1", "."), ("l2", "."), ("up", ".."), ("system", "/usr")] {
            try FileManager.default.createSymbolicLink(atPath: directory.path + "/files/" + name, withDestinationPath: target)
        }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              hashes:
                inputs: [files/*.txt]
                steps: {h: {robot: /file/hash, use: ':original'}}
            """)
        let (process, collected) = try startWatching(in: directory)
        defer { if process.isRunning { process.terminate() } }
        let started = await eventually(within: .seconds(30)) { collected.count("pipeline: watching") >= 1 }
        XCTAssertTrue(started, "the loops were walked: \(collected.value)")
        // files, files/sub, and the project's folder (through `up`, inside the project; and for the manifest).
        XCTAssertTrue(collected.value.contains("watching 3 folders"), collected.value)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, collected.value)
        XCTAssertTrue(collected.value.contains("stopped watching; state is saved"), collected.value)
    }

    func testAManifestThatIsNotThereIsAnErrorNotAWait() async throws {
        let directory = try TemporaryDirectory(prefix: "watch-missing")
        defer { directory.remove() }
        let (process, collected) = try startWatching(in: directory, manifest: "typo.yml")
        let ended = await eventually(within: .seconds(10)) { !process.isRunning }
        if !ended { process.terminate() }
        XCTAssertTrue(ended, collected.value)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, collected.value)
    }

    func testChangesRunAgainAndCtrlCStops() async throws {
        let directory = try TemporaryDirectory(prefix: "watch")
        defer { directory.remove() }
        for name in ["a", "b"] { try directory.write("files/\(name).txt", name) }
        let manifest = """
            version: 1
            endpoint: local
            results: build/results.json
            assemblies:
              hashes:
                inputs: [files/*.txt]
                batch: 1
                steps: {h: {robot: /file/hash, use: ':original', algorithm: ALGORITHM}}
                download: build/files
            """
        try directory.write("pipeline.yml", manifest.replacingOccurrences(of: "ALGORITHM", with: "sha256"))
        let (process, collected) = try startWatching(in: directory)
        defer { if process.isRunning { process.terminate() } }
        func waitFor(_ needle: String, count: Int, _ what: String) async {
            let seen = await eventually(within: .seconds(30)) { collected.count(needle) >= count }
            XCTAssertTrue(seen, "\(what): \(collected.value)")
        }
        let watching = "pipeline: watching"
        await waitFor(watching, count: 1, "the first run, then watching")
        XCTAssertEqual(collected.count("completed, "), 2, "two Assemblies at first")

        try directory.write("files/c.txt", "c")
        await waitFor(watching, count: 2, "a new file runs again")
        XCTAssertEqual(collected.count("completed, "), 3, "only the new file's Assembly: \(collected.value)")

        // An editor's save: a swap file, then a rename over the original.
        try directory.write("files/.a.txt.swp", "changed a")
        XCTAssertEqual(rename(directory.path + "/files/.a.txt.swp", directory.path + "/files/a.txt"), 0)
        await waitFor(watching, count: 3, "a changed file runs again")
        XCTAssertEqual(collected.count("completed, "), 4, "once: \(collected.value)")

        XCTAssertTrue(collected.value.contains("pipeline: added files/c.txt\n"), collected.value)
        XCTAssertTrue(collected.value.contains("pipeline: changed files/a.txt\n"), "an editor's save is a change, not an addition: \(collected.value)")

        // Beside the manifest, only the manifest counts (and sed's or an editor's temporary files do
        // not): the watcher reads its events in order, so the manifest's change, written after
        // them, is the next it reports, alone.
        try directory.write("notes.md", "unrelated")
        try directory.write("pipeline.yml.new", "unrelated")
        try directory.write("pipeline.yml", manifest.replacingOccurrences(of: "ALGORITHM", with: "md5"))
        await waitFor(watching, count: 4, "a manifest change re-plans")
        XCTAssertEqual(collected.change(afterWatch: 3), "changed pipeline.yml", "an unrelated file is no change: \(collected.value)")
        XCTAssertEqual(collected.count("completed, "), 7, "every Assembly again, with the new step: \(collected.value)")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json")))
        XCTAssertEqual(results["assemblies"]?.arrayValue?.count, 3)

        // An edited manifest always runs, even when everything is cached (a new download folder fills).
        try FileManager.default.removeItem(atPath: directory.path + "/build/files")
        try directory.write("pipeline.yml", manifest.replacingOccurrences(of: "ALGORITHM", with: "md5") + "\n# reviewed\n")
        await waitFor(watching, count: 5, "a manifest edit that changes no Assembly")
        XCTAssertTrue(collected.value.contains("3 cached"), collected.value)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/build/files/h"), "cached results downloaded again")

        // The run's own outputs started nothing by themselves: the next change reported is the
        // next one made.
        try directory.write("files/c.txt", "changed c")
        await waitFor(watching, count: 6, "a changed file runs again")
        XCTAssertEqual(collected.change(afterWatch: 5), "changed files/c.txt", "the run's outputs are no change: \(collected.value)")

        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertTrue(collected.value.contains("stopped watching; state is saved"), collected.value)
    }
}
