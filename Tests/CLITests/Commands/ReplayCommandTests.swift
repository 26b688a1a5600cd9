import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// `pipeline replay` over HTTP: the service runs what it kept with the manifest's new steps,
/// nothing is uploaded again, the results take the new entries, and the next run has them cached.
final class ReplayCommandTests: XCTestCase {
    private let environment = ["TRANSLOADIT_SECRET": "unchecked"]

    func testAReplayRunsTheNewStepsWithoutUploadingAndItsResultsAreTheRunsOwn() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try TestProject.resizing(
            prefix: "replay", endpoint: "http://127.0.0.1:\(server.port)", images: ["a.png": (64, 32), "b.png": (48, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16}", batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = await CLIHarness.run(["run", manifest], environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        let uploads = server.requests.filter { $0.hasPrefix("POST /resumable") || $0.hasPrefix("PATCH") }.count
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "width: 16", with: "width: 24").write(toFile: manifest, atomically: true, encoding: .utf8)

        let replayed = await CLIHarness.run(["replay", manifest, "thumbs"], environment: environment)
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
        XCTAssertEqual(replayed.stdout, "Replay: 2 replayed, 0 failed, 0 skipped. Results: \(HumanPath.shown(directory.path + "/results.json"))\n")
        XCTAssertEqual(server.requests.filter { $0.hasPrefix("POST /resumable") || $0.hasPrefix("PATCH") }.count, uploads, "nothing uploaded again")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let widths = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["thumb"]?.arrayValue ?? [] }.compactMap { $0["meta"]?["width"]?.intValue }
        XCTAssertEqual(widths, [24, 24])
        let cached = await CLIHarness.run(["run", manifest], environment: environment)
        XCTAssertTrue(cached.stdout.hasPrefix("Run: 0 completed, 2 cached, 0 failed."), cached.stdout)

        let nothing = await CLIHarness.run(["replay", manifest, "no-such-job"], environment: environment)
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("nothing to replay"), nothing.stderr)
    }

    func testAnAssemblyURLOnAnotherHostIsNeverAskedAndTheEndpointIsAskedForTheID() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let foreign = try EngineTestServer()
        defer { foreign.stop() }
        let directory = try TestProject.resizing(
            prefix: "replay-foreign", endpoint: "http://127.0.0.1:\(server.port)", images: ["a.png": (64, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16}")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = await CLIHarness.run(["run", manifest], environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        // A results file that names another server for the same Assembly.
        let resultsPath = directory.path + "/results.json"
        let results = try String(contentsOfFile: resultsPath, encoding: .utf8)
        let forged = results.replacingOccurrences(of: "127.0.0.1:\(server.port)/assemblies/", with: "127.0.0.1:\(foreign.port)/assemblies/")
        XCTAssertNotEqual(forged, results)
        try forged.write(toFile: resultsPath, atomically: true, encoding: .utf8)
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "width: 16", with: "width: 24").write(toFile: manifest, atomically: true, encoding: .utf8)

        let replayed = await CLIHarness.run(["replay", manifest, "--all"], environment: environment)
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
        XCTAssertEqual(foreign.requests, [], "the host the results file names is never asked")
        XCTAssertTrue(server.requests.contains { $0.hasPrefix("POST /assemblies/") && $0.contains("/replay ") }, "\(server.requests)")
        let written = try String(contentsOfFile: resultsPath, encoding: .utf8)
        XCTAssertFalse(written.contains("127.0.0.1:\(foreign.port)"), written)
    }

    /// Replaying is paid work on the service: a replay names what it replays, and one that names
    /// nothing is refused with the jobs there are to name, or --all.
    func testAReplayWithoutTargetsListsTheJobsAndReplaysNothingUnlessAll() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try TestProject.resizing(
            prefix: "replay-all", endpoint: "http://127.0.0.1:\(server.port)", images: ["a.png": (64, 32), "b.png": (48, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16}", batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = await CLIHarness.run(["run", manifest], environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)

        let unnamed = await CLIHarness.run(["replay", manifest], environment: environment)
        XCTAssertEqual(unnamed.status, 64, unnamed.stderr)
        XCTAssertTrue(unnamed.stderr.contains("name the jobs or Assemblies to replay, or --all for every one; the last results' jobs: 'thumbs' (2 Assemblies)"), unnamed.stderr)
        XCTAssertTrue(unnamed.stderr.contains("Usage: pipeline replay MANIFEST [TARGET...] [options]"), unnamed.stderr)
        XCTAssertFalse(server.requests.contains { $0.contains("/replay ") }, "nothing replayed: \(server.requests)")
        let both = await CLIHarness.run(["replay", manifest, "thumbs", "--all"], environment: environment)
        XCTAssertEqual(both.status, 64, both.stderr)

        let all = await CLIHarness.run(["replay", manifest, "--all"], environment: environment)
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertTrue(all.stderr.hasPrefix("pipeline: replaying 2 Assemblies (thumbs 2): thumbs "), all.stderr)
        XCTAssertEqual(server.requests.filter { $0.contains("/replay ") }.count, 2, "\(server.requests)")
        let help = await CLIHarness.run(["replay", "--help"])
        XCTAssertTrue(help.stdout.contains("--all"), help.stdout)
        XCTAssertTrue(help.stdout.contains("pipeline replay pipeline.yml --all"), help.stdout)
    }

    func testTheEmbeddedEngineKeepsNothingToReplay() async throws {
        let directory = try TestProject.resizing(
            prefix: "replay-local", endpoint: "local", images: ["a.png": (64, 32)], steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16}")
        defer { directory.remove() }
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let replay = await CLIHarness.run(["replay", directory.path + "/pipeline.yml", "--all"])
        XCTAssertEqual(replay.status, 1)
        XCTAssertTrue(replay.stderr.contains("reads files where they are and keeps none to replay"), replay.stderr)
    }
}

/// A path as the run's summary shows it: relative to the current folder when below it.
private enum HumanPath {
    static func shown(_ path: String) -> String {
        let folder = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }
}
