import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// Ids, state files and results that a lying server or a forged file hands the runner name
/// nothing outside the workspace and print nothing to the terminal but text.
final class HostileStateTests: XCTestCase {
    private func project(endpoint: String) throws -> TemporaryDirectory {
        try TestProject.hashing(prefix: "hostile-state", endpoint: endpoint, files: ["a.bin": Data(repeating: 7, count: 1000)])
    }

    func testAServerChosenAssemblyIdIsNeverAPath() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, _) = try server.faulty(["POST:1:id=../../../escaped"])
        defer { proxy.stop() }
        let directory = try project(endpoint: proxy.url(""))
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unchecked"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("not 32 lowercase hexadecimal characters"), result.stderr)
        let parent = (directory.path as NSString).deletingLastPathComponent
        XCTAssertFalse(FileManager.default.fileExists(atPath: parent + "/escaped"), "the id became a folder outside the workspace")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/escaped"))
    }

    func testAForgedRunStateIdStartsAfresh() async throws {
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--force"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let statePath = directory.path + "/.pipeline/manifests/pipeline/run-state.json"
        let state = try String(contentsOfFile: statePath, encoding: .utf8)
        let id = try XCTUnwrap(state.firstMatch(of: /"assembly_id"\s*:\s*"([0-9a-f]{32})"/)?.1)
        try state.replacingOccurrences(of: String(id), with: "../../../escaped").write(toFile: statePath, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: directory.path + "/results.json")
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: (directory.path as NSString).deletingLastPathComponent + "/escaped"))
        let status = await CLIHarness.run(["status", directory.path + "/pipeline.yml"])
        XCTAssertFalse(status.stdout.contains("escaped"), status.stdout)
    }

    func testLinksPlantedInTheStateFolderAreRefused() async throws {
        let elsewhere = try TemporaryDirectory(prefix: "hostile-elsewhere")
        defer { elsewhere.remove() }
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path + "/.pipeline", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/.pipeline/engine", withDestinationPath: elsewhere.path)
        let engine = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(engine.status, 1, engine.stderr)
        XCTAssertTrue(engine.stderr.contains(".pipeline/engine': it is a symbolic link"), engine.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
        let status = await CLIHarness.run(["status", directory.path + "/pipeline.yml"])
        XCTAssertEqual(status.status, 1, "status reads no state through a link either: \(status.stdout)")
        XCTAssertTrue(status.stderr.contains("it is a symbolic link"), status.stderr)

        try FileManager.default.removeItem(atPath: directory.path + "/.pipeline/engine")
        try FileManager.default.createDirectory(atPath: directory.path + "/.pipeline/manifests/pipeline", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/.pipeline/manifests/pipeline/run-state.json.lock", withDestinationPath: elsewhere.path + "/created")
        let lock = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(lock.status, 1, lock.stderr)
        XCTAssertTrue(lock.stderr.contains("symbolic link"), lock.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.path + "/created"), "the lock link created a file outside")
    }

    /// A run state whose Assembly URL names another server (restored from a cache another branch
    /// wrote, or committed): a local run never asks it, nor takes its results for its own.
    func testAStoredAssemblyURLOnAnotherServerIsNeverAsked() async throws {
        let foreign = try EngineTestServer()
        defer { foreign.stop() }
        let address = "http://127.0.0.1:\(foreign.port)"
        let directory = try project(endpoint: address)
        defer { directory.remove() }
        let there = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unchecked"])
        XCTAssertEqual(there.status, 0, there.stderr)
        let statePath = directory.path + "/.pipeline/manifests/pipeline/run-state.json"
        let state = try String(contentsOfFile: statePath, encoding: .utf8)
        XCTAssertTrue(state.contains(address), state)
        // The same state, claimed for the embedded engine.
        let manifest = directory.path + "/pipeline.yml"
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "endpoint: " + address, with: "endpoint: local")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        try state.replacingOccurrences(of: "\"endpoint\" : \"" + address + "\"", with: "\"endpoint\" : \"local\"")
            .replacingOccurrences(of: "\"endpoint\":\"" + address + "\"", with: "\"endpoint\":\"local\"")
            .write(toFile: statePath, atomically: true, encoding: .utf8)
        XCTAssertTrue(try String(contentsOfFile: statePath, encoding: .utf8).contains("\"local\""), "the forged state claims the engine")
        try FileManager.default.removeItem(atPath: directory.path + "/results.json")
        let asked = foreign.requests.count
        let local = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(local.status, 0, local.stderr)
        XCTAssertEqual(foreign.requests.count, asked, "the foreign server was asked: \(foreign.requests.suffix(3))")
        let results = try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8)
        XCTAssertFalse(results.contains(address), "the foreign server's Assembly became this run's: \(results)")
        let status = await CLIHarness.run(["cancel", manifest])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertEqual(foreign.requests.count, asked, "cancel sent the foreign server a request")
    }

    /// Links planted deeper below `.pipeline/engine/` than the first two levels: where an
    /// Assembly's uploads and results go (its id taken from a forged run state) and below an
    /// export bucket. The embedded engine writes nothing through any of them.
    func testLinksDeepInTheEngineFolderReceiveNothing() async throws {
        let elsewhere = try TemporaryDirectory(prefix: "hostile-deep")
        defer { elsewhere.remove() }
        for name in ["results", "uploads", "bucket"] { try FileManager.default.createDirectory(atPath: elsewhere.path + "/" + name, withIntermediateDirectories: true) }
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        try (try String(contentsOfFile: manifest, encoding: .utf8) + """

                  stored: {robot: /s3/store, use: ":original", credentials: bucket, path: "deep/er/${file.name}"}

            """).write(toFile: manifest, atomically: true, encoding: .utf8)
        let first = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(first.status, 0, first.stderr)
        let engine = directory.path + "/.pipeline/engine"
        XCTAssertTrue(FileManager.default.fileExists(atPath: engine + "/exports/bucket/deep/er/a.bin"), "the export as it should be")

        // The next run's Assembly id comes from the state: links wait where its files would go.
        let id = "0123456789abcdef0123456789abcdef"
        let statePath = directory.path + "/.pipeline/manifests/pipeline/run-state.json"
        let state = try String(contentsOfFile: statePath, encoding: .utf8)
        let planID = try XCTUnwrap(state.firstMatch(of: /"([0-9a-f]{32})(?: [^"]*)?"\s*:\s*\{/)?.1)
        try "{\"\(planID)\":{\"assembly_id\":\"\(id)\",\"endpoint\":\"local\"}}".write(toFile: statePath, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: statePath + ".journal")
        try FileManager.default.removeItem(atPath: directory.path + "/results.json")
        try FileManager.default.createDirectory(atPath: engine + "/results", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: engine + "/results/" + id, withDestinationPath: elsewhere.path + "/results")
        try FileManager.default.createSymbolicLink(atPath: engine + "/assemblies/" + id, withDestinationPath: elsewhere.path + "/uploads")
        let planted = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(planted.status, 1, "refused before the Assembly stores its files: \(planted.stderr)")
        XCTAssertTrue(planted.stderr.contains("it is a symbolic link"), planted.stderr)
        for planted in [engine + "/results/" + id, engine + "/assemblies/" + id] { try FileManager.default.removeItem(atPath: planted) }
        // Below an export bucket, with a fresh Assembly.
        // (deeper than the state folder's own check for links, which would refuse it first).
        try FileManager.default.removeItem(atPath: engine + "/exports/bucket/deep/er")
        try FileManager.default.createSymbolicLink(atPath: engine + "/exports/bucket/deep/er", withDestinationPath: elsewhere.path + "/bucket")
        let exported = await CLIHarness.run(["run", manifest, "--force"])
        XCTAssertEqual(exported.status, 1, exported.stderr)
        XCTAssertTrue(exported.stderr.contains("STORE_ERROR"), exported.stderr)
        for name in ["results", "uploads", "bucket"] {
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path + "/" + name), [], "\(name): \(planted.stderr) \(exported.stderr)")
        }
    }

    /// Links where only the engine's start and `gc` reach: an upload's bytes (a start cuts an
    /// upload back to its record) and the results folder (`gc` removes what no results name).
    /// Every command that would start the engine or collect refuses, and the files stay.
    func testLinksWhereTheEngineStartsOrCollectsAreRefused() async throws {
        let outside = try TemporaryDirectory(prefix: "hostile-collect")
        defer { outside.remove() }
        let precious = Data(repeating: 42, count: 1000)
        try outside.write("precious.bin", data: precious)
        try outside.write("results/" + String(repeating: "c", count: 32) + "/kept.txt", "not the engine's")
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(first.status, 0, first.stderr)
        let engine = directory.path + "/.pipeline/engine"
        let upload = engine + "/uploads/" + String(repeating: "1", count: 32)
        try FileManager.default.createDirectory(atPath: engine + "/uploads", withIntermediateDirectories: true)
        try #"{"id": "11111111111111111111111111111111", "length": 1000, "offset": 10, "metadata": {}, "created": "2026-01-01T00:00:00Z", "expires": "2026-01-01T00:00:00Z"}"#
            .write(toFile: upload + ".json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: upload + ".bin", withDestinationPath: outside.path + "/precious.bin")
        for command in [["gc", manifest, "--dry-run"], ["gc", manifest], ["run", manifest, "--force"]] {
            let refused = await CLIHarness.run(command)
            XCTAssertEqual(refused.status, 1, "\(command): \(refused.stdout)")
            XCTAssertTrue(refused.stderr.contains(".bin': it is a symbolic link"), refused.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: outside.path + "/precious.bin")), precious)

        try FileManager.default.removeItem(atPath: upload + ".bin")
        try FileManager.default.removeItem(atPath: engine + "/results")
        try FileManager.default.createSymbolicLink(atPath: engine + "/results", withDestinationPath: outside.path + "/results")
        let collected = await CLIHarness.run(["gc", manifest])
        XCTAssertEqual(collected.status, 1, collected.stdout)
        XCTAssertTrue(collected.stderr.contains("engine/results': it is a symbolic link"), collected.stderr)
        XCTAssertEqual(try String(contentsOfFile: outside.path + "/results/" + String(repeating: "c", count: 32) + "/kept.txt", encoding: .utf8), "not the engine's")
    }

    /// A lying server's words (an Assembly's `ok`, `error` and `message`) carry line breaks that
    /// would start workflow commands, and escape sequences: the FAILED line, the annotation and
    /// the summary show them as text on the line they belong to.
    func testAServersWordsStartNoLineAndMoveNoCursor() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let words = "ASSEMBLY_CRASHED%0A::error::forged%0D%0A::add-mask::x%1B[2J%E2%80%A8::warning::separator%2525"
        let (proxy, _) = try server.faulty(["POST:1:says=" + words])
        defer { proxy.stop() }
        let directory = try project(endpoint: proxy.url(""))
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unchecked", "GITHUB_ACTIONS": "true"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("ASSEMBLY_CRASHED"), result.stderr)
        XCTAssertFalse(result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{2028}" || $0 == "\r" }, result.stderr)
        for line in (result.stdout + result.stderr).split(separator: "\n") {
            XCTAssertFalse(line.hasPrefix("::add-mask") || line.hasPrefix("::warning") || line.hasPrefix("::error::forged"), "a server started a line: \(line)")
        }
        let annotation = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("::error title=Assembly failed::") })
        XCTAssertTrue(annotation.contains("ASSEMBLY_CRASHED ::error::forged"), "the words stay inside the one annotation: \(annotation)")
        XCTAssertTrue(annotation.contains("separator%2525"), "a % is encoded, so the runner cannot decode the server's %25 into anything: \(annotation)")
    }

    /// A committed file named like a workflow command, and a forged result URL that is one:
    /// `results`, `plan`, `status` and `report` print them as text no CI runner takes for a command.
    func testFileNamesAndURLsStartNoWorkflowCommand() async throws {
        let directory = try TestProject.resizing(
            prefix: "hostile-names", endpoint: "local", images: [
                "::warning title=x::PLANTED.png": (32, 24), "a ##[add-mask]b.png": (32, 24), "a ##vso[task.setvariable variable=X]1.png": (32, 24),
            ],
            steps: "      small: {robot: /image/resize, use: \":original\", width: 16}")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let environment = ["GITHUB_ACTIONS": "true"]
        let run = await CLIHarness.run(["run", manifest], environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        let resultsPath = directory.path + "/results.json"
        let results = try String(contentsOfFile: resultsPath, encoding: .utf8)
        XCTAssertTrue(results.contains("task.setvariable"), results)
        XCTAssertFalse(results.contains("##vso[") || results.contains("##[add-mask]"), results)
        let forged = try XCTUnwrap(results.range(of: #""url":\s*"[^"]*""#, options: .regularExpression))
        try results.replacingCharacters(in: forged, with: #""url": "::add-mask::forged""#).write(toFile: resultsPath, atomically: true, encoding: .utf8)
        var printed = run.stdout + run.stderr
        let commands = [
            ["results", manifest], ["results", manifest, "--json"], ["plan", manifest], ["plan", manifest, "--json"],
            ["validate", manifest, "--json"], ["status", manifest], ["report", manifest],
        ]
        for command in commands {
            let result = await CLIHarness.run(command, environment: environment)
            printed += result.stdout + result.stderr
        }
        XCTAssertTrue(printed.contains("PLANTED.png") && printed.contains("task.setvariable"), printed)
        for line in printed.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            XCTAssertFalse(trimmed.hasPrefix("::warning") || trimmed.hasPrefix("::add-mask"), "a file or URL started a command: \(line)")
            XCTAssertFalse(line.contains("##[add-mask]") || line.contains("##vso["), "a file name holds a command: \(line)")
        }
    }

    /// A restored cache can hold FIFOs where state files go (tar keeps them): no command waits on
    /// one for a writer or a reader that never comes; each ends, and says what it could not read or write.
    func testFIFOsPlantedInStateEndEveryCommand() async throws {
        let directory = try TestProject.resizing(
            prefix: "hostile-fifo", endpoint: "local", images: ["a.png": (32, 24)],
            steps: "      small: {robot: /image/resize, use: \":original\", width: 16}", download: "build")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = try await ChildProcess.run([ProcessRunner.pipelineExecutable, "run", manifest], timeout: .seconds(60))
        XCTAssertEqual(first.status, 0, first.stderr)
        let state = directory.path + "/.pipeline/manifests/pipeline"
        let planted = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasSuffix(".json") }.map { state + "/" + $0 }
            + [directory.path + "/results.json"]
        XCTAssertGreaterThan(planted.count, 2, "\(planted)")
        for path in planted {
            XCTAssertEqual(unlink(path), 0, path)
            XCTAssertEqual(mkfifo(path, 0o644), 0, path)
        }
        for command in [["plan", manifest], ["run", manifest], ["run", manifest, "--force"], ["status", manifest], ["diff", manifest], ["gc", manifest], ["report", manifest]] {
            do {
                _ = try await ChildProcess.run([ProcessRunner.pipelineExecutable] + command, timeout: .seconds(60))
            } catch is ChildProcess.TimedOut {
                XCTFail("'pipeline \(command[0])' waited on a FIFO")
            }
        }
    }
}
