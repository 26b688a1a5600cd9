import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// `pipeline status` tells the truth: an Assembly cut by Ctrl-C is interrupted, not failed; an
/// Assembly of the steps some files missed is named by its planned Assembly; an Assembly a
/// `run --no-wait` left is shown as it is now, whatever a run elsewhere did since.
final class StatusTruthTests: XCTestCase {
    private let secret = ["TRANSLOADIT_SECRET": "unchecked"]

    private func rows(_ manifest: String, _ extra: [String] = []) async throws -> [JSONValue] {
        let status = await CLIHarness.run(["status", manifest, "--json"] + extra)
        XCTAssertEqual(status.status, 0, status.stderr)
        return try JSONValue.parse(Data(status.stdout.utf8))["assemblies"]?.arrayValue ?? []
    }

    private func planIDs(_ directory: TemporaryDirectory) throws -> [String] {
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        return (results["assemblies"]?.arrayValue ?? []).compactMap { $0["plan_id"]?.stringValue }
    }

    func testAnAssemblyCutByCtrlCIsCountedAsInterruptedNotFailed() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, tus) = try server.faulty(["PATCH:1:hang=1000000"])
        defer { proxy.stop() }
        let directory = try TestProject.hashing(prefix: "status-interrupted", endpoint: String(tus.dropLast("/resumable/files/".count)), files: ["big.bin": TestProject.random(5_000_000)])
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let run = Process()
        run.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        run.arguments = ["run", manifest]
        run.environment = ProcessInfo.processInfo.environment.merging(secret) { _, new in new }
        run.standardOutput = FileHandle.nullDevice
        run.standardError = FileHandle.nullDevice
        try run.run()
        let uploading = await eventually { server.largestStoredSize() >= 900_000 }
        XCTAssertTrue(uploading, "the upload started")
        kill(run.processIdentifier, SIGINT)
        run.waitUntilExit()
        XCTAssertEqual(run.terminationStatus, 130)
        // The service cannot be asked now: what the run recorded is shown.
        proxy.stop()
        let status = await CLIHarness.run(["status", manifest])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("  INTERRUPTED\n"), status.stdout)
        XCTAssertTrue(status.stdout.contains("1 Assembly (hashes 1): 0 completed, 0 failed, 1 interrupted, 0 in flight\n"), status.stdout)
        let shown = try await rows(manifest)
        XCTAssertEqual(shown.map { $0["interrupted"] }, [.bool(true)])
    }

    func testAnAssemblyOfMissingStepsIsNamedByItsPlannedAssembly() async throws {
        let directory = try TestProject.hashing(prefix: "status-plan", endpoint: "local", files: ["a.bin": Data("a".utf8), "b.bin": Data("b".utf8)], batch: "10")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(first.status, 0, first.stderr)
        // The planned Assembly now holds c.bin too: only c.bin is hashed, in an Assembly of its own.
        try directory.write("files/c.bin", "c")
        let second = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(second.status, 0, second.stderr)
        let planned = try planIDs(directory)
        XCTAssertEqual(planned.count, 1)
        let shown = try await rows(manifest)
        XCTAssertFalse(shown.isEmpty)
        XCTAssertEqual(Set(shown.compactMap { $0["plan_id"]?.stringValue }), Set(planned), "the plan's and the results' id: \(shown)")
        let table = await CLIHarness.run(["status", manifest])
        XCTAssertTrue(table.stdout.contains("  \(planned[0].prefix(12))  "), table.stdout)
    }

    func testAnAssemblyARunLeftRunningIsShownAsItIsAfterARunElsewhere() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try TestProject.hashing(
            prefix: "status-left", endpoint: "http://127.0.0.1:\(server.port)", files: ["a.bin": TestProject.random(64_000), "b.bin": TestProject.random(64_000)], batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let left = await CLIHarness.run(["run", manifest, "--no-wait"], environment: secret)
        XCTAssertEqual(left.status, 0, left.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let ids = Set((results["assemblies"]?.arrayValue ?? []).compactMap { $0["assembly_id"]?.stringValue })
        XCTAssertEqual(ids.count, 2)
        let dead = await CLIHarness.run(["run", manifest, "--endpoint", "http://127.0.0.1:1", "--timeout", "1s"], environment: secret)
        XCTAssertEqual(dead.status, 1, dead.stderr)
        let completed = await eventually {
            ids.allSatisfy { id in
                ((try? String(contentsOfFile: server.data.path + "/assemblies/\(id).json", encoding: .utf8)) ?? "").contains("ASSEMBLY_COMPLETED")
            }
        }
        XCTAssertTrue(completed, "the engine completed both")
        let shown = try await rows(manifest)
        XCTAssertEqual(Set(shown.compactMap { $0["assembly_id"]?.stringValue }), ids, "\(shown)")
        XCTAssertEqual(shown.map { $0["status"] }, [.string("ASSEMBLY_COMPLETED"), .string("ASSEMBLY_COMPLETED")], "\(shown)")
        // The dead endpoint's own attempt is shown there.
        let elsewhere = try await rows(manifest, ["--endpoint", "http://127.0.0.1:1"])
        XCTAssertEqual(elsewhere.count, 2, "\(elsewhere)")
        XCTAssertTrue(elsewhere.allSatisfy { $0["status"] != .string("ASSEMBLY_COMPLETED") && !ids.contains($0["assembly_id"]?.stringValue ?? "") }, "\(elsewhere)")
        // The next run collects them: it creates nothing.
        let next = await CLIHarness.run(["run", manifest, "--json"], environment: secret)
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertFalse(next.stdout.contains("\"event\":\"created\""), next.stdout)
    }
}
