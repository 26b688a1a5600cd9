import Basics
import EngineTestSupport
import Foundation
import Synchronization
import TestSupport
import XCTest

/// A failed or cut run never costs the good state: after a good run, a run against a dead
/// endpoint and one cut by Ctrl-C leave every source's results queryable and every download in
/// place, and the next run creates nothing.
final class GoodStateTests: XCTestCase {
    private let secret = ["TRANSLOADIT_SECRET": "unchecked"]

    /// A project of two images resized (downloaded into `out/`) and a 5 MB file hashed (sent by PATCH).
    private func project(endpoint: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "good-state")
        for (name, width) in [("a.png", 64), ("b.png", 48)] { try directory.write("images/" + name, data: TestImages.png(width: width, height: 32)) }
        try directory.write("data/big.bin", data: TestProject.random(5_000_000))
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: \(endpoint)
            auth:
              key: test-key
            results: results.json
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                batch: 1
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 16}
                download: out
              hashes:
                inputs: ["data/*.bin"]
                steps:
                  hash: {robot: /file/hash, use: ":original"}

            """)
        return directory
    }

    /// What a person finds: each source's results (step, name, size, download path) as `pipeline
    /// results` lists them, and each downloaded file's bytes.
    private func outcome(_ directory: TemporaryDirectory) async throws -> String {
        let shown = await CLIHarness.run(["results", directory.path + "/pipeline.yml", "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let sources = try JSONValue.parse(Data(shown.stdout.utf8))["sources"]?.objectValue ?? [:]
        var lines = sources.keys.sorted().flatMap { source in
            (sources[source]?.arrayValue ?? []).map { row in
                [source, row["step"]?.stringValue ?? "", row["name"]?.stringValue ?? "", row["size"]?.serialized() ?? "", row["local_path"]?.stringValue ?? ""].joined(separator: " ")
            }
        }
        for name in (try? FileManager.default.subpathsOfDirectory(atPath: directory.path + "/out")) ?? [] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path + "/out/" + name, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            lines.append("out/\(name) " + FileHashing.sha256(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/" + name))))
        }
        return lines.sorted().joined(separator: "\n")
    }

    private func creates(_ server: EngineTestServer) -> Int { server.requests.filter { $0.hasPrefix("POST /assemblies/") && !$0.contains("/replay") }.count }

    /// Whether the engine holds an upload cut short: what a PATCH held by the proxy sent.
    private static func partlyUploaded(_ server: EngineTestServer) -> Bool {
        fileNames(in: server.data.path + "/uploads").filter { $0.hasSuffix(".bin") }.contains { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: server.data.path + "/uploads/" + name)[.size] as? Int) ?? 0
            return (900_000..<5_000_000).contains(size)
        }
    }

    func testADeadEndpointAndACutRunLeaveTheLastGoodStateAndTheNextRunCreatesNothing() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // The second PATCH (the forced run's 5 MB upload) hangs after 1 MB.
        let (proxy, tus) = try server.faulty(["PATCH:2:hang=1000000"])
        defer { proxy.stop() }
        let directory = try project(endpoint: String(tus.dropLast("/resumable/files/".count)))
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let good = await CLIHarness.run(["run", manifest], environment: secret)
        XCTAssertEqual(good.status, 0, good.stderr)
        let last = try await outcome(directory)
        XCTAssertEqual(last.split(separator: "\n").filter { !$0.hasPrefix("out/") }.count, 3, last)

        // Nothing listens there: the run fails, and the results and downloads stay the last good run's.
        let dead = await CLIHarness.run(["run", manifest, "--endpoint", "http://127.0.0.1:1", "--timeout", "1s"], environment: secret)
        XCTAssertEqual(dead.status, 1, dead.stderr)
        XCTAssertTrue(dead.stderr.contains("the results stay those made on http://127.0.0.1:"), dead.stderr)
        let afterDead = try await outcome(directory)
        XCTAssertEqual(afterDead, last, "a run against a dead endpoint changed what the last good run left")
        let results = try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8)
        XCTAssertTrue(results.contains("\"endpoint\": \"http://127.0.0.1:1\""), "the failure is recorded beside the good entry: \(results)")
        if let validator = PythonPeers.tool("check-jsonschema") {
            let checked = try ProcessRunner.run(validator, ["--schemafile", PackageRoot.path + "/schemas/results.schema.json", directory.path + "/results.json"])
            XCTAssertEqual(checked.status, 0, "the results with a failure beside match their schema: \(checked.stdout) \(checked.stderr)")
        }

        // A forced run cut by Ctrl-C in the middle of the 5 MB upload.
        let cut = Process()
        cut.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        cut.arguments = ["run", manifest, "--force"]
        cut.environment = ProcessInfo.processInfo.environment.merging(secret) { _, new in new }
        cut.standardOutput = FileHandle.nullDevice
        cut.standardError = FileHandle.nullDevice
        try cut.run()
        let uploading = await eventually { Self.partlyUploaded(server) }
        XCTAssertTrue(uploading, "the forced run's upload started")
        kill(cut.processIdentifier, SIGINT)
        cut.waitUntilExit()
        XCTAssertEqual(cut.terminationStatus, 130)
        let afterCut = try await outcome(directory)
        XCTAssertEqual(afterCut, last, "a cut run lost what the last good run left")

        // Everything the last good state had is cached: nothing is created.
        let made = creates(server)
        let next = await CLIHarness.run(["run", manifest], environment: secret)
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertTrue(next.stdout.hasPrefix("Run: 0 completed, 3 cached, 0 failed."), next.stdout)
        XCTAssertEqual(creates(server), made, "no Assembly created: \(server.requests.suffix(10))")
        let final = try await outcome(directory)
        XCTAssertEqual(final, last)
        let written = try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8)
        XCTAssertFalse(written.contains("\"attempt\""), "a run that completed everything keeps no failure: \(written)")
    }

    /// The run command's own task canceled (a caller in this process) cuts the run as Ctrl-C does.
    func testARunWhoseTaskIsCanceledEndsAsCtrlCDoes() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, tus) = try server.faulty(["PATCH:1:hang=1000000"])
        defer { proxy.stop() }
        let directory = try TestProject.hashing(prefix: "good-state-cancel", endpoint: String(tus.dropLast("/resumable/files/".count)), files: ["big.bin": TestProject.random(5_000_000)])
        defer { directory.remove() }
        let ended = Flag()
        let secret = secret
        let run = Task {
            let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
            ended.raise()
            return result
        }
        let uploading = await eventually { Self.partlyUploaded(server) }
        XCTAssertTrue(uploading, "the upload started")
        run.cancel()
        let stopped = await eventually { ended.isRaised }
        XCTAssertTrue(stopped, "the canceled run ended")
        if !stopped { proxy.stop() }  // lets the run end, failing
        let result = await run.value
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertTrue(result.stderr.contains("interrupted; state is saved"), result.stderr)
        let results = try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8)
        XCTAssertTrue(results.contains("\"INTERRUPTED\""), results)
    }
}

/// Set once, read from any task.
private final class Flag: Sendable {
    private let raised = Mutex(false)

    func raise() { raised.withLock { $0 = true } }
    var isRaised: Bool { raised.withLock { $0 } }
}
