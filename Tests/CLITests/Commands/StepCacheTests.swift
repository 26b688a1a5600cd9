import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// Results keyed by content and step, end to end on the embedded engine: a changed step is the
/// only one made again, a renamed file costs nothing, a copied project runs cached, and the
/// engine's data keeps only what results name.
final class StepCacheTests: XCTestCase {
    private static let steps = [("w100", 100), ("w200", 200), ("w300", 300)]

    /// Twelve images in two folders, three resize steps, four files per Assembly (the folders are batched
    /// apart: four Assemblies), downloads in `out/files`.
    private func project(download: Bool = true) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "step-cache")
        for index in 0..<12 {
            try directory.write((index < 6 ? "images/" : "images/more/") + "p\(index).png", data: TestImages.png(width: 400 + index, height: 300))
        }
        try directory.write("pipeline.yml", manifest(widths: Self.steps, download: download))
        return directory
    }

    private func manifest(widths: [(String, Int)], download: Bool = true) -> String {
        var text = "version: 1\nendpoint: local\nauth:\n  key: test-key\nresults: out/results.json\nassemblies:\n  photos:\n    inputs: [\"images/**/*.png\"]\n    batch: 4\n    steps:\n"
        for (name, width) in widths { text += "      \(name): {robot: /image/resize, use: \":original\", width: \(width)}\n" }
        return text + (download ? "    download: out/files\n" : "")
    }

    private func run(_ directory: TemporaryDirectory, _ extra: [String] = []) async -> (status: Int32, stdout: String, stderr: String) {
        await CLIHarness.run(["run", directory.path + "/pipeline.yml"] + extra)
    }

    /// The files the engine holds as results, by path below its results folder.
    private func engineResults(_ directory: TemporaryDirectory) -> Set<String> {
        let root = directory.path + "/.pipeline/engine/results"
        let paths = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return Set(paths.filter { path in
            var info = stat()
            return lstat(root + "/" + path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        })
    }

    private func assemblyRecords(_ directory: TemporaryDirectory) -> Set<String> {
        Set(((try? FileSystem.names(in: directory.path + "/.pipeline/engine/assemblies")) ?? []).filter { $0.hasSuffix(".json") })
    }

    private func results(_ directory: TemporaryDirectory) throws -> RunResultsView {
        RunResultsView(try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json"))))
    }

    func testChangingOneStepMakesOnlyThatStepAgainAndThePlanSaysSo() async throws {
        let directory = try project()
        defer { directory.remove() }
        let first = await run(directory)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(engineResults(directory).count, 36)
        let before = engineResults(directory)
        let w200Bytes = try results(directory).bytes(step: "w200")

        try directory.write("pipeline.yml", manifest(widths: [("w100", 100), ("w200", 250), ("w300", 300)]))
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("work: w200: 12 files; w100, w300: cached"), plan.stdout)
        XCTAssertTrue(plan.stdout.contains("~ job photos: steps.w200.width: 200 -> 250 (runs w200: 12 files; w100, w300: cached)"), plan.stdout)
        XCTAssertTrue(plan.stdout.contains("12 robot executions (12 /image/resize); about \(ByteSize(bytes: w200Bytes)) out"),
                      "the usage estimate counts what runs, and the output of the steps that run: \(plan.stdout)")
        let markdown = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--format", "markdown"])
        XCTAssertTrue(markdown.stdout.contains("- `photos`: w200: 12 files; w100, w300: cached"), markdown.stdout)
        let diff = await CLIHarness.run(["diff", directory.path + "/pipeline.yml"])
        XCTAssertTrue(diff.stdout.contains("  job photos work: w200: 12 files; w100, w300: cached\n"), diff.stdout)
        let diffJSON = try JSONValue.parse(Data(await CLIHarness.run(["diff", directory.path + "/pipeline.yml", "--json"]).stdout.utf8))
        XCTAssertEqual(diffJSON["files_per_step"]?["photos"], .object(["w100": .int(0), "w200": .int(12), "w300": .int(0)]))

        let second = await run(directory)
        XCTAssertEqual(second.status, 0, second.stderr)
        let made = engineResults(directory).subtracting(before)
        XCTAssertEqual(made.count, 12, "only w200's results are made again: \(made.sorted())")
        let results = try results(directory)
        XCTAssertEqual(Set(results.widths(step: "w200")), [250])
        XCTAssertEqual(Set(results.widths(step: "w100")), [100])
        XCTAssertEqual(Set(results.widths(step: "w300")), [300])
        XCTAssertEqual(results.sources(step: "w200").count, 12)
        // Each planned Assembly's entry holds every step, as if one Assembly made them.
        for entry in results.entries {
            XCTAssertEqual(Set(entry["results"]?.objectValue?.keys.map { $0 } ?? []), ["w100", "w200", "w300"])
            XCTAssertEqual(entry["status"]?.stringValue, "ASSEMBLY_COMPLETED")
        }
        // The downloads follow: w200's files are the new size.
        let w200 = try XCTUnwrap(TestImages.pngSize(Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/files/w200/p0.png"))))
        XCTAssertEqual(w200.width, 250)

        let third = await run(directory)
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertTrue(third.stdout.hasPrefix("Run: 0 completed, 4 cached, 0 failed."), third.stdout)
    }

    func testOverHTTPAnAssemblyHoldsOnlyTheStepsToMake() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try project()
        defer { directory.remove() }
        let arguments = ["--endpoint", "http://127.0.0.1:\(server.port)"]
        let environment = ["TRANSLOADIT_SECRET": "unchecked"]
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"] + arguments, environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        let records = Set(try FileSystem.names(in: server.data.path + "/assemblies").filter { $0.hasSuffix(".json") })
        try directory.write("pipeline.yml", manifest(widths: [("w100", 100), ("w200", 250), ("w300", 300)]))
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"] + arguments, environment: environment)
        XCTAssertEqual(second.status, 0, second.stderr)
        let made = Set(try FileSystem.names(in: server.data.path + "/assemblies").filter { $0.hasSuffix(".json") }).subtracting(records)
        XCTAssertEqual(made.count, 4)
        for name in made {
            let record = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: server.data.path + "/assemblies/" + name)))
            XCTAssertEqual(record["steps"]?.objectValue.map { Set($0.keys) }, ["w200"], "only the changed step is sent")
        }
        let results = try results(directory)
        XCTAssertEqual(Set(results.widths(step: "w200")), [250])
        XCTAssertEqual(results.sources(step: "w100").count, 12)
        let w200 = try XCTUnwrap(TestImages.pngSize(Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/files/w200/more/p11.png"))))
        XCTAssertEqual(w200.width, 250)
    }

    func testANewStepRunsAloneAndRenamedOrMovedFilesCostNothing() async throws {
        let directory = try project()
        defer { directory.remove() }
        let first = await run(directory)
        XCTAssertEqual(first.status, 0, first.stderr)
        try directory.write("pipeline.yml", manifest(widths: Self.steps + [("w50", 50)]))
        let added = await run(directory)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(engineResults(directory).count, 48, "the new step made 12 results, nothing else ran again")
        let records = assemblyRecords(directory)
        let files = engineResults(directory)

        // Same bytes under new names, one in a new folder with a name a URL must escape.
        try FileManager.default.createDirectory(atPath: directory.path + "/images/moved", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: directory.path + "/images/p0.png", toPath: directory.path + "/images/moved/p 0 #1 %20 é.png")
        try FileManager.default.moveItem(atPath: directory.path + "/images/more/p7.png", toPath: directory.path + "/images/p7-renamed.png")
        let renamedDiff = await CLIHarness.run(["diff", directory.path + "/pipeline.yml"])
        XCTAssertTrue(renamedDiff.stdout.contains("0 to process"), "the moved files' batches are new plans, with nothing to make: \(renamedDiff.stdout)")
        let renamed = await run(directory)
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertTrue(renamed.stdout.contains("0 completed"), renamed.stdout)
        XCTAssertEqual(assemblyRecords(directory), records, "no Assembly was made")
        XCTAssertEqual(engineResults(directory), files, "nothing was made or removed")
        let results = try results(directory)
        XCTAssertTrue(results.sources(step: "w100").contains("images/moved/p 0 #1 %20 é.png"))
        XCTAssertFalse(results.sources(step: "w100").contains("images/p0.png"))
        for step in ["w50", "w100", "w200", "w300"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/out/files/\(step)/moved/p 0 #1 %20 é.png"), step)
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/out/files/\(step)/p7-renamed.png"), step)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/out/files/\(step)/p0.png"), "the old download is pruned")
        }
    }

    func testACopiedProjectRunsCachedAndWhatIsGoneIsMadeAgain() async throws {
        let original = try project()
        defer { original.remove() }
        let first = await run(original)
        XCTAssertEqual(first.status, 0, first.stderr)
        let copy = try TemporaryDirectory(prefix: "step-cache-copy")
        defer { copy.remove() }
        // A CI cache restored on another runner: sources from the checkout, state and results from the cache, no downloads.
        for item in ["pipeline.yml", "images", ".pipeline"] {
            try FileManager.default.copyItem(atPath: original.path + "/" + item, toPath: copy.path + "/" + item)
        }
        try FileManager.default.createDirectory(atPath: copy.path + "/out", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: original.path + "/out/results.json", toPath: copy.path + "/out/results.json")
        original.remove()

        // Nothing the copy holds names the folder it was made in.
        let name = (original.path as NSString).lastPathComponent
        let state = FileManager.default.enumerator(atPath: copy.path)?.compactMap { $0 as? String } ?? []
        // (The plan the last run kept names the manifest as the command was given it: here an absolute path.)
        for path in state where !path.hasPrefix("images") && !path.hasSuffix("last-plan.json") {
            guard let data = FileManager.default.contents(atPath: copy.path + "/" + path) else { continue }
            XCTAssertFalse(String(decoding: data, as: UTF8.self).contains(name), "\(path) names the original folder")
        }

        let restored = await run(copy)
        XCTAssertEqual(restored.status, 0, restored.stderr)
        XCTAssertTrue(restored.stdout.hasPrefix("Run: 0 completed, 4 cached, 0 failed."), restored.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.path + "/out/files/w300/more/p11.png"), "downloads come from the copied engine data")
        XCTAssertFalse(restored.stderr.contains("ignored the stored Assembly"), restored.stderr)

        // A cached result whose engine file is gone (and never downloaded) is work to redo, not a failure.
        try FileManager.default.removeItem(atPath: copy.path + "/out/files")
        let engineResults = copy.path + "/.pipeline/engine/results"
        for id in try FileSystem.names(in: engineResults) { try FileManager.default.removeItem(atPath: engineResults + "/" + id) }
        let redone = await run(copy)
        XCTAssertEqual(redone.status, 0, redone.stderr)
        XCTAssertTrue(redone.stdout.hasPrefix("Run: 4 completed, 0 cached, 0 failed."), redone.stdout)
        XCTAssertEqual(self.engineResults(copy).count, 36)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.path + "/out/files/w100/p0.png"))

        // An engine file cut short (a full disk, a bad restore) is not what was made: made again, not a failure.
        let url = try XCTUnwrap(try results(copy).url(step: "w100", source: "images/p0.png"))
        let damaged = try XCTUnwrap(ResultURLs.path(url, resultsFolder: copy.path + "/out"))
        XCTAssertEqual(truncate(damaged, 100), 0)
        try FileManager.default.removeItem(atPath: copy.path + "/out/files/w100/p0.png")
        let plan = await CLIHarness.run(["plan", copy.path + "/pipeline.yml"])
        XCTAssertTrue(plan.stdout.contains("work: w100: 1 file; w200, w300: cached"), plan.stdout)
        let repaired = await run(copy)
        XCTAssertEqual(repaired.status, 0, repaired.stderr)
        XCTAssertEqual(TestImages.pngSize(try Data(contentsOf: URL(fileURLWithPath: copy.path + "/out/files/w100/p0.png")))?.width, 100)
    }

    func testTheEngineKeepsOnlyWhatResultsNameAndGCSaysWhatItFrees() async throws {
        let directory = try project(download: false)
        defer { directory.remove() }
        for width in [100, 110, 120] {
            try directory.write("pipeline.yml", manifest(widths: [("w100", width)], download: false))
            let result = await run(directory)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(assemblyRecords(directory).count, 4, "superseded Assemblies are removed after run with width \(width)")
            XCTAssertEqual(engineResults(directory).count, 12)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/images/p0.png"), "sources read in place stay")
        let idle = await CLIHarness.run(["gc", directory.path + "/pipeline.yml"])
        XCTAssertEqual(idle.status, 0, idle.stderr)
        XCTAssertEqual(idle.stdout, "Removed 0 Assemblies, 0 uploads and 0 result files that no results name (0 B); kept 4 Assemblies.\n")

        // Leftovers no results name: a stray result folder, and one holding a link out of the project, which is removed, never followed.
        let outside = try TemporaryDirectory(prefix: "step-cache-outside")
        defer { outside.remove() }
        try outside.write("keep.txt", "not the engine's")
        let stray = directory.path + "/.pipeline/engine/results/" + String(repeating: "a", count: 32)
        try FileManager.default.createDirectory(atPath: stray + "/step", withIntermediateDirectories: true)
        try Data(count: 5000).write(to: URL(fileURLWithPath: stray + "/big.bin"))
        try FileManager.default.createSymbolicLink(atPath: stray + "/step/link", withDestinationPath: outside.path)
        // A dry run writes nothing, not even this manifest's record of what it needs.
        let record = directory.path + "/.pipeline/manifests/pipeline/engine-assemblies.json"
        try FileManager.default.removeItem(atPath: record)
        let dry = await CLIHarness.run(["gc", directory.path + "/pipeline.yml", "--dry-run"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: record))
        XCTAssertEqual(dry.stdout, "Would remove 1 Assembly, 0 uploads and 1 result file that no results name (5 KB); kept 4 Assemblies.\n", dry.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: stray + "/big.bin"))
        let collected = await CLIHarness.run(["gc", directory.path + "/pipeline.yml"])
        XCTAssertEqual(collected.stdout, "Removed 1 Assembly, 0 uploads and 1 result file that no results name (5 KB); kept 4 Assemblies.\n", collected.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray))
        XCTAssertTrue(FileManager.default.fileExists(atPath: record))
        XCTAssertEqual(try String(contentsOfFile: outside.path + "/keep.txt", encoding: .utf8), "not the engine's")
        let cached = await run(directory)
        XCTAssertTrue(cached.stdout.hasPrefix("Run: 0 completed, 4 cached, 0 failed."), cached.stdout)

        // A renamed manifest: what the old name's state needs is kept, and gc says where it is.
        try FileManager.default.moveItem(atPath: directory.path + "/pipeline.yml", toPath: directory.path + "/site.yml")
        let renamed = await CLIHarness.run(["gc", directory.path + "/site.yml"])
        XCTAssertEqual(renamed.stdout, """
            Removed 0 Assemblies, 0 uploads and 0 result files that no results name (0 B); kept 4 Assemblies.
            Kept for pipeline, a manifest no longer here: remove .pipeline/manifests/pipeline/ if it is gone for good, then run gc again.

            """, renamed.stderr)
    }
}

/// A results file read for assertions.
private struct RunResultsView {
    let entries: [JSONValue]

    init(_ json: JSONValue) { entries = json["assemblies"]?.arrayValue ?? [] }

    private func files(_ step: String) -> [JSONValue] { entries.flatMap { $0["results"]?[step]?.arrayValue ?? [] } }

    func widths(step: String) -> [Int] { files(step).compactMap { $0["meta"]?["width"]?.intValue } }

    func sources(step: String) -> [String] { files(step).compactMap { $0["source"]?.stringValue } }

    func url(step: String, source: String) -> String? { files(step).first { $0["source"]?.stringValue == source }?["url"]?.stringValue }

    func bytes(step: String) -> Int64 { files(step).reduce(0) { $0 + Int64($1["size"]?.intValue ?? 0) } }
}
