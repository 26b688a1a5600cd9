import Foundation
import Basics
import TestSupport
import XCTest

/// Two manifests in one folder keep their own state: digests, run state, lock, status and results.
final class ManifestsInOneFolderTests: XCTestCase {
    private func manifest(_ pattern: String, results: String) -> String {
        """
        version: 1
        endpoint: local
        results: \(results)
        assemblies:
          hashes:
            inputs: ["\(pattern)"]
            batch: 1
            steps:
              hash: {robot: /file/hash, use: ":original"}
        """
    }

    /// A fresh folder with `files/<name>.txt` for each name.
    private func folder(_ names: [String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "two-manifests")
        for name in names { try directory.write("files/\(name).txt", name) }
        return directory
    }

    /// The manifest a results file says wrote it.
    private func recordedManifest(_ results: String) throws -> JSONValue? {
        try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: results)))["manifest"]
    }

    /// Runs `manifest` again and checks that the Assembly an earlier run made is found, not made twice.
    private func assertResumesTheEarlierAssembly(_ manifest: String, line: UInt = #line) async {
        let again = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(again.status, 0, again.stderr, line: line)
        XCTAssertTrue(again.stderr.contains("resumed hashes"), "the Assembly made before is found again: \(again.stderr)", line: line)
        XCTAssertFalse(again.stderr.contains("created hashes"), again.stderr, line: line)
    }

    func testEachManifestKeepsItsOwnState() async throws {
        let directory = try folder(["a1", "a2", "b1"])
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("files/a*.txt", results: "a-results.json"))
        try directory.write("second.yml", manifest("files/b*.txt", results: "b-results.json"))
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = await CLIHarness.run(["run", directory.path + "/second.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        // Each one's state is its own: the status of one lists only its Assemblies, and a rerun is all cached.
        let status = await CLIHarness.run(["status", directory.path + "/pipeline.yml"])
        XCTAssertEqual(status.stdout.split(separator: "\n").filter { $0.contains("ASSEMBLY_") }.count, 2, status.stdout)
        let again = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertTrue(again.stderr.contains("(2 cached)"), again.stderr)
        for name in ["pipeline.yml", "second.yml"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/manifests/\(name.replacingOccurrences(of: ".yml", with: ""))/digests"), name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/manifests/\(name.replacingOccurrences(of: ".yml", with: ""))/run-state.json"), name)
        }
    }

    /// Two manifests downloading into one folder: the second run says so (their results of one
    /// step and name would replace each other), and a manifest alone there hears nothing.
    func testAManifestDownloadingWhereAnotherDoesIsWarned() async throws {
        let directory = try folder(["a1", "b1"])
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("files/a*.txt", results: "a-results.json") + "\n    download: out\n")
        try directory.write("other.yml", manifest("files/b*.txt", results: "b-results.json") + "\n    download: out\n")
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertFalse(first.stderr.contains("downloads into"), first.stderr)
        let second = await CLIHarness.run(["run", directory.path + "/other.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("warning: manifest 'pipeline' downloads into 'out' too"), second.stderr)
    }

    func testEachManifestGetsItsOwnReportWithStepsInManifestOrder() async throws {
        let directory = try folder(["a1", "b1"])
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("files/a*.txt", results: "a-results.json"))
        // Steps whose names sort the other way round from the manifest's order.
        try directory.write("newsletter.yml", """
            version: 1
            endpoint: local
            results: b-results.json
            assemblies:
              hashes:
                inputs: ["files/b*.txt"]
                steps:
                  zeta: {robot: /file/hash, use: ":original", result: true}
                  alpha: {robot: /file/hash, use: ":original", algorithm: sha1, result: true}
            """)
        for name in ["pipeline.yml", "newsletter.yml"] {
            let run = await CLIHarness.run(["run", directory.path + "/" + name])
            XCTAssertEqual(run.status, 0, run.stderr)
            let report = await CLIHarness.run(["report", directory.path + "/" + name])
            XCTAssertEqual(report.status, 0, report.stderr)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/report.html"))
        let page = try String(contentsOfFile: directory.path + "/newsletter.report.html", encoding: .utf8)
        let zeta = try XCTUnwrap(page.range(of: ">zeta<")), alpha = try XCTUnwrap(page.range(of: ">alpha<"))
        XCTAssertLessThan(zeta.lowerBound, alpha.lowerBound, "steps in the manifest's order")
        let main = try String(contentsOfFile: directory.path + "/report.html", encoding: .utf8)
        XCTAssertFalse(main.contains(">zeta<"), "the main manifest's page is its own")
    }

    func testOneResultsFileIsNotTakenOverByTheOtherManifest() async throws {
        let directory = try folder(["a1", "b1"])
        defer { directory.remove() }
        try directory.write("a.yml", manifest("files/a*.txt", results: "results.json"))
        try directory.write("b.yml", manifest("files/b*.txt", results: "results.json"))
        let first = await CLIHarness.run(["run", directory.path + "/a.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json"))
        XCTAssertEqual(try recordedManifest(directory.path + "/results.json"), .string("a.yml"))
        let second = await CLIHarness.run(["run", directory.path + "/b.yml"])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("holds the results of '\(directory.path)/a.yml', which a run of '\(directory.path)/b.yml' would replace; nothing was run"), second.stderr)
        XCTAssertTrue(second.stderr.contains("results: b-results.json"), second.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")), before, "a.yml's results are left as they were")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/manifests/b/run-state.json"), "nothing of b.yml ran")
        // The same manifest by another name (a link to it) is not another manifest.
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/ci.yml", withDestinationPath: "a.yml")
        let linked = await CLIHarness.run(["run", directory.path + "/ci.yml"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        // Its own file, or a.yml gone (renamed, say): the run goes ahead.
        let own = await CLIHarness.run(["run", directory.path + "/b.yml", "--results", directory.path + "/b-results.json"])
        XCTAssertEqual(own.status, 0, own.stderr)
        try FileManager.default.removeItem(atPath: directory.path + "/a.yml")
        let renamed = await CLIHarness.run(["run", directory.path + "/b.yml"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertEqual(try recordedManifest(directory.path + "/results.json"), .string("b.yml"))
    }

    func testTwoManifestsRunAtOnceOnOneResultsFileDoNotBothWriteIt() async throws {
        let directory = try folder(["a1", "a2", "b1", "b2"])
        defer { directory.remove() }
        try directory.write("a.yml", manifest("files/a*.txt", results: "results.json"))
        try directory.write("b.yml", manifest("files/b*.txt", results: "results.json"))
        // The second waits for the embedded engine the first holds, then sees what the first wrote.
        async let first = CLIHarness.run(["run", directory.path + "/a.yml"])
        async let second = CLIHarness.run(["run", directory.path + "/b.yml"])
        let outcomes = await [first, second]
        XCTAssertEqual(outcomes.map(\.status).sorted(), [0, 1], outcomes.map(\.stderr).joined(separator: "\n"))
        let winner = outcomes[0].status == 0 ? "a.yml" : "b.yml"
        XCTAssertEqual(try recordedManifest(directory.path + "/results.json"), .string(winner))
        XCTAssertTrue(outcomes.contains { $0.stderr.contains("nothing was run") }, outcomes.map(\.stderr).joined(separator: "\n"))
    }

    func testManifestsOfTwoFoldersPointedAtOneResultsFileDoNotTakeEachOthers() async throws {
        let directory = try TemporaryDirectory(prefix: "two-manifests")
        defer { directory.remove() }
        for folder in ["x", "y"] {
            try directory.write("\(folder)/files/a1.txt", folder)
            try directory.write("\(folder)/pipeline.yml", manifest("files/a*.txt", results: "results.json"))
        }
        let shared = directory.path + "/shared/results.json"
        try FileManager.default.createDirectory(atPath: directory.path + "/shared", withIntermediateDirectories: true)
        let first = await CLIHarness.run(["run", directory.path + "/x/pipeline.yml", "--results", shared])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try recordedManifest(shared), .string("../x/pipeline.yml"))
        let second = await CLIHarness.run(["run", directory.path + "/y/pipeline.yml", "--results", shared])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("holds the results of '\(directory.path)/x/pipeline.yml'"), second.stderr)
        let again = await CLIHarness.run(["run", directory.path + "/x/pipeline.yml", "--results", shared])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("1 cached"), again.stderr)
    }

    func testAYmlAndAYamlOfOneNameKeepTheirOwnState() async throws {
        let directory = try folder(["a1", "a2", "b1"])
        defer { directory.remove() }
        try directory.write("m.yml", manifest("files/a*.txt", results: "a-results.json"))
        try directory.write("m.yaml", manifest("files/b*.txt", results: "b-results.json"))
        for name in ["m.yml", "m.yaml", "m.yml", "m.yaml"] {
            let run = await CLIHarness.run(["run", directory.path + "/" + name])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let yml = await CLIHarness.run(["run", directory.path + "/m.yml"])
        XCTAssertTrue(yml.stderr.contains("(2 cached)"), yml.stderr)
        let yaml = await CLIHarness.run(["run", directory.path + "/m.yaml"])
        XCTAssertTrue(yaml.stderr.contains("(1 cached)"), yaml.stderr)
        let status = await CLIHarness.run(["status", directory.path + "/m.yaml"])
        XCTAssertEqual(status.stdout.split(separator: "\n").filter { $0.contains("ASSEMBLY_COMPLETED") }.count, 1, status.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/manifests/m.yaml/run-state.json"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/manifests/m/run-state.json"))
    }

    func testAYamlManifestsOlderStateIsAdoptedSoNothingIsMadeTwice() async throws {
        let directory = try folder(["a1"])
        defer { directory.remove() }
        try directory.write("m.yaml", manifest("files/a*.txt", results: "a-results.json"))
        let first = await CLIHarness.run(["run", directory.path + "/m.yaml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        // As an older version left it: in manifests/m/, and no results file to say it is done.
        let state = directory.path + "/.pipeline/manifests"
        try FileManager.default.moveItem(atPath: state + "/m.yaml", toPath: state + "/m")
        try FileManager.default.removeItem(atPath: directory.path + "/a-results.json")
        await assertResumesTheEarlierAssembly(directory.path + "/m.yaml")
    }

    func testTwoShardsOfOneManifestDoNotReplaceEachOthersResults() async throws {
        let directory = try folder(["a1", "a2", "a3", "a4"])
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("files/a*.txt", results: "results.json"))
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--shard", "1/2"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json"))
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--shard", "2/2"])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("holds the results of shard 1/2, which shard 2/2's run would replace; nothing was run"), second.stderr)
        XCTAssertTrue(second.stderr.contains("--results file (such as results-2-of-2.json)"), second.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")), before)
        // Its own file; the same shard again; and the whole run, which holds every shard's share.
        let own = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--shard", "2/2", "--results", directory.path + "/results-2.json"])
        XCTAssertEqual(own.status, 0, own.stderr)
        let again = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--shard", "1/2"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let whole = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
    }

    func testStateFromBeforeIsAdoptedSoNothingIsMadeTwice() async throws {
        let directory = try folder(["a1"])
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("files/a*.txt", results: "a-results.json"))
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        // As an older version left it: the run state in .pipeline/ itself, and no results file to say it is done.
        let own = directory.path + "/.pipeline/manifests/pipeline"
        try FileManager.default.moveItem(atPath: own + "/run-state.json", toPath: directory.path + "/.pipeline/run-state.json")
        try FileManager.default.removeItem(atPath: own)
        try FileManager.default.removeItem(atPath: directory.path + "/a-results.json")
        await assertResumesTheEarlierAssembly(directory.path + "/pipeline.yml")
    }

    func testQuietSaysNothingOfAnAssemblyItResumes() async throws {
        let directory = try folder(["a1"])
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("files/a*.txt", results: "a-results.json"))
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        try FileManager.default.removeItem(atPath: directory.path + "/a-results.json")
        let made = fileNames(in: directory.path + "/.pipeline/engine/assemblies").count
        let quiet = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "-q"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(fileNames(in: directory.path + "/.pipeline/engine/assemblies").count, made, "the earlier Assembly was resumed, not made again")
        XCTAssertEqual(quiet.stderr, "", "-q: no line for a resumed Assembly")
        XCTAssertTrue(quiet.stdout.contains("Run: 1 completed"), quiet.stdout)
    }
}
