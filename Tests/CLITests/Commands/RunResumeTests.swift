import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// `pipeline run` interrupted (SIGKILL, Ctrl-C) in the middle of an upload, then run again:
/// no second Assembly, no second upload (tus only ever appends at the server's offset, so a
/// single upload proves finished bytes were not sent again), and the right result.
final class RunResumeTests: XCTestCase {
    private func project(endpoint: String, content: Data) throws -> TemporaryDirectory {
        try TestProject.hashing(prefix: "run-resume", endpoint: endpoint, files: ["big.bin": content], folder: "data", algorithm: "sha256")
    }


    private func startRun(_ directory: TemporaryDirectory) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["run", directory.path + "/pipeline.yml", "--json"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TRANSLOADIT_SECRET": "unused-secret"]) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits until the engine holds `bytes` of the upload and the run remembers the upload's URL
    /// (what a run resuming it needs).
    private func waitForStored(_ server: EngineTestServer, atLeast bytes: Int, in directory: TemporaryDirectory) async {
        let uploads = directory.path + "/.pipeline/uploads"
        let stored = await eventually(within: .seconds(30)) {
            let remembered = ((try? FileManager.default.subpathsOfDirectory(atPath: uploads)) ?? []).contains { $0.hasSuffix(".json") }
            return server.largestStoredSize() >= bytes && remembered
        }
        XCTAssertTrue(stored, "the engine holds \(bytes) bytes and the run remembers the upload")
    }

    private func count(_ folder: String, suffix: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(suffix) }.count
    }

    private func assertFinishedOnce(_ server: EngineTestServer, _ directory: TemporaryDirectory, _ content: Data) throws {
        XCTAssertEqual(count(server.data.path + "/assemblies", suffix: ".json"), 1, "exactly one Assembly")
        XCTAssertEqual(count(server.data.path + "/uploads", suffix: ".bin"), 1, "exactly one tus upload")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let hash = results["assemblies"]?.arrayValue?.first?["results"]?["hash"]?.arrayValue?.first?["meta"]?["hash"]
        XCTAssertEqual(hash, .string(FileHashing.sha256(content)))
    }

    func testKilledRunResumesWithoutDuplicates() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // Checksummed uploads go in 8 MiB chunks: hang in the second one.
        let (proxy, endpoint) = try server.faulty(["PATCH:2:hang=5000000"])
        defer { proxy.stop() }
        let content = TestProject.random(48_000_000)
        let directory = try project(endpoint: String(endpoint.dropLast("/resumable/files/".count)), content: content)
        defer { directory.remove() }

        let first = try startRun(directory)
        await waitForStored(server, atLeast: 8 << 20, in: directory)
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()

        let second = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", directory.path + "/pipeline.yml", "--json"],
                                           environment: ["TRANSLOADIT_SECRET": "unused-secret"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.contains("\"event\":\"resumed\""), second.stdout)
        XCTAssertFalse(second.stdout.contains("\"event\":\"created\""), "the Assembly of the killed run is found again")
        try assertFinishedOnce(server, directory, content)
    }

    func testCtrlCSavesStateAndExits130() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // Over 4 MiB, so it goes by PATCH (whose URL the run knows, to resume): the PATCH hangs.
        let (proxy, endpoint) = try server.faulty(["PATCH:1:hang=1000000"])
        defer { proxy.stop() }
        let content = TestProject.random(5_000_000)
        let directory = try project(endpoint: String(endpoint.dropLast("/resumable/files/".count)), content: content)
        defer { directory.remove() }

        let first = Process()
        first.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        first.arguments = ["run", directory.path + "/pipeline.yml"]
        first.environment = ProcessInfo.processInfo.environment.merging(["TRANSLOADIT_SECRET": "unused-secret"]) { _, new in new }
        let errors = Pipe()
        first.standardError = errors
        first.standardOutput = FileHandle.nullDevice
        try first.run()
        let uploading = await eventually { server.largestStoredSize() >= 900_000 }
        XCTAssertTrue(uploading, "the upload started")
        kill(first.processIdentifier, SIGINT)
        first.waitUntilExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(first.terminationStatus, 130, log)
        XCTAssertTrue(log.contains("interrupted; state is saved"), log)
        XCTAssertTrue(log.contains("Run the same command again to resume"), log)
        // An Assembly cut short by Ctrl-C is interrupted (or not started), never a network failure.
        if let results = try? String(contentsOfFile: directory.path + "/results.json", encoding: .utf8) {
            XCTAssertFalse(results.contains("\"NETWORK\""), results)
        }
        XCTAssertFalse(log.contains("FAILED NETWORK"), log)

        let second = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", directory.path + "/pipeline.yml"],
                                           environment: ["TRANSLOADIT_SECRET": "unused-secret"])
        XCTAssertEqual(second.status, 0, second.stderr)
        try assertFinishedOnce(server, directory, content)
    }
}
