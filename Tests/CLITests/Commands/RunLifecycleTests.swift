import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// Around a run: diff against the last run, status, cancel, interrupts, an engine restart.
final class RunLifecycleTests: XCTestCase {
    private func project(endpoint: String, files: [String: Data]) throws -> TemporaryDirectory {
        try TestProject.hashing(prefix: "lifecycle", endpoint: endpoint, files: files, folder: "data", batch: "1", results: nil)
    }

    private let secret = ["TRANSLOADIT_SECRET": "unused"]


    func testDiffAgainstTheLastRunAndStatus() async throws {
        let directory = try project(endpoint: "local", files: ["a.bin": Data("a".utf8), "b.bin": Data("b".utf8)])
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let before = await CLIHarness.run(["diff", manifest])
        XCTAssertTrue(before.stdout.hasSuffix("2 to process, 0 cached, 0 gone.\n"), before.stdout)
        let run = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(run.status, 0, run.stderr)
        let same = await CLIHarness.run(["diff", manifest, "--exit-code"])
        XCTAssertEqual(same.status, 0)
        XCTAssertTrue(same.stdout.hasSuffix("0 to process, 2 cached, 0 replaced, 0 gone.\n"), same.stdout)
        try directory.write("data/b.bin", data: Data("b, edited".utf8))
        let changed = await CLIHarness.run(["diff", manifest, "--exit-code"])
        XCTAssertEqual(changed.status, 2)
        XCTAssertTrue(changed.stdout.hasSuffix("1 to process, 1 cached, 1 replaced, 0 gone.\n"), changed.stdout)

        let status = await CLIHarness.run(["status", manifest, "--json"])
        let rows = try JSONValue.parse(Data(status.stdout.utf8))["assemblies"]?.arrayValue ?? []
        XCTAssertEqual(rows.map { $0["status"] }, [.string("ASSEMBLY_COMPLETED"), .string("ASSEMBLY_COMPLETED")])
    }

    func testInterruptThenCancelAndCancelOnInterrupt() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, endpoint) = try server.faulty(["PATCH:1:hang=1000000", "PATCH:2:hang=1000000"])
        defer { proxy.stop() }
        let base = String(endpoint.dropLast("/resumable/files/".count))
        for flag in [[], ["--cancel-on-interrupt"]] {
            // Over 4 MiB: sent by PATCH (a smaller file goes whole in the creating POST).
            let directory = try project(endpoint: base, files: ["big.bin": TestProject.random(5_000_000)])
            defer { directory.remove() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
            process.arguments = ["run", directory.path + "/pipeline.yml"] + flag
            process.environment = ProcessInfo.processInfo.environment.merging(secret) { _, new in new }
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            // Interrupt once the upload is under way (the proxy lets 1 MB through, chunk framing included, then holds).
            let uploading = await eventually { server.largestStoredSize() >= 900_000 }
            XCTAssertTrue(uploading, "the upload started")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(process.terminationStatus, 130, log)
            if flag.isEmpty {
                let cancel = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["cancel", directory.path + "/pipeline.yml"])
                XCTAssertEqual(cancel.status, 0, cancel.stderr)
                XCTAssertTrue(cancel.stdout.contains("ASSEMBLY_CANCELED"), cancel.stdout)
                XCTAssertTrue(cancel.stdout.hasSuffix("Canceled 1 Assembly.\n"), cancel.stdout)
            } else {
                XCTAssertTrue(log.contains("canceled 1 Assembly in flight"), log)
            }
        }
        // The engine writes its records behind, within milliseconds.
        let bothCanceled = await eventually(within: .seconds(5)) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: server.data.path + "/assemblies")) ?? []).filter { $0.hasSuffix(".json") }
            let records = names.compactMap { try? String(contentsOfFile: server.data.path + "/assemblies/" + $0, encoding: .utf8) }
            return records.filter { $0.contains("ASSEMBLY_CANCELED") }.count == 2
        }
        XCTAssertTrue(bothCanceled, "both Assemblies are canceled on the engine")
    }

    /// A run whose embedded engine's folder is in use waits, says so, and gives up at Ctrl-C.
    func testARunWaitingForTheEngineFolderStopsAtCtrlC() async throws {
        let directory = try TemporaryDirectory(prefix: "engine-wait")
        defer { directory.remove() }
        try directory.write("files/a.txt", "a")
        try directory.write("pipeline.yml", "version: 1\nendpoint: local\nassemblies:\n  a: {inputs: [files/a.txt], steps: {h: {robot: /file/hash, use: ':original'}}}\n")
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", directory.path + "/.pipeline/engine", "--quiet"])
        defer { serve.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["run", directory.path + "/pipeline.yml"]
        try directory.write("stderr", "")
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stderr"))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let waiting = await eventually(within: .seconds(20)) {
            ((try? String(contentsOfFile: directory.path + "/stderr", encoding: .utf8)) ?? "").contains("in use by another pipeline command or a pipeline serve")
        }
        XCTAssertTrue(waiting, (try? String(contentsOfFile: directory.path + "/stderr", encoding: .utf8)) ?? "")
        let interrupted = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        // The wait it ends has no bound of its own: any bound a loaded machine keeps proves it.
        XCTAssertLessThan(ContinuousClock.now - interrupted, .seconds(30), "one Ctrl-C ends the wait")
    }

    func testEngineRestartMidRun() async throws {
        var server = try EngineTestServer()
        let port = UInt16(server.port)
        let data = server.data
        defer { data.remove() }
        let directory = try project(endpoint: "http://127.0.0.1:\(port)", files: ["a.bin": TestProject.random(40_000_000), "b.bin": TestProject.random(40_000_000)])
        defer { directory.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["run", directory.path + "/pipeline.yml", "--concurrency", "1"]
        process.environment = ProcessInfo.processInfo.environment.merging(secret) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        await eventually {
            !((try? FileManager.default.contentsOfDirectory(atPath: data.path + "/assemblies")) ?? []).filter { $0.hasSuffix(".json") }.isEmpty
        }
        // Stopped mid-upload (the run's request is cut) and started again at once on the same port.
        server.stop(keepData: true)
        server = try EngineTestServer(data: data, port: port)
        defer { server.stop(keepData: true) }
        process.waitUntilExit()
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        XCTAssertEqual(process.terminationStatus, 0, "the run rode out the restart: \(results.serialized())")
        XCTAssertEqual(results["assemblies"]?.arrayValue?.map { $0["status"] }, [.string("ASSEMBLY_COMPLETED"), .string("ASSEMBLY_COMPLETED")])
        let assemblies = try FileManager.default.contentsOfDirectory(atPath: data.path + "/assemblies").filter { $0.hasSuffix(".json") }
        XCTAssertEqual(assemblies.count, 2, "no Assembly was created twice")
    }
}
