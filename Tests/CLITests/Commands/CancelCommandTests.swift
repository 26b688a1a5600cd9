import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// `pipeline cancel` after a run with `--endpoint`: it asks that endpoint (given again with
/// `--endpoint`; never another endpoint with the run's ids), and exits 1 when it canceled
/// nothing of what it tried, naming each Assembly and why.
final class CancelCommandTests: XCTestCase {
    func testCancelAsksTheEndpointTheRunUsedAndFailsWhenNothingWasCanceled() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // The first PATCH hangs (the run is interrupted with its Assembly uploading); the first DELETE fails.
        let (proxy, tus) = try server.faulty(["PATCH:1:hang=1000000", "DELETE:1:status=500"])
        defer { proxy.stop() }
        let base = String(tus.dropLast("/resumable/files/".count))
        // The manifest names the embedded engine; the run goes elsewhere.
        let directory = try TestProject.hashing(prefix: "cancel", endpoint: "local", files: ["big.bin": TestProject.random(5_000_000)], folder: "data", batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["run", manifest, "--endpoint", base]
        process.environment = ProcessInfo.processInfo.environment.merging(["TRANSLOADIT_SECRET": "unused"]) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let uploading = await eventually { server.largestStoredSize() >= 900_000 }
        XCTAssertTrue(uploading, "the upload started")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)

        // Without --endpoint: the manifest's endpoint is not where the run went; nothing is sent anywhere.
        let elsewhere = await CLIHarness.run(["cancel", manifest])
        XCTAssertEqual(elsewhere.status, 1, elsewhere.stdout)
        XCTAssertTrue(elsewhere.stderr.contains("the last run of \(manifest) was on \(base), not local"), elsewhere.stderr)
        XCTAssertTrue(elsewhere.stderr.contains("'pipeline cancel \(manifest) --endpoint \(base)'"), elsewhere.stderr)
        XCTAssertFalse(server.requests.contains { $0.hasPrefix("DELETE /assemblies") }, "\(server.requests)")

        // The endpoint refuses: exit 1, the Assembly named with why.
        let refused = await CLIHarness.run(["cancel", manifest, "--endpoint", base])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stdout.hasSuffix("Canceled 0 Assemblies.\n"), refused.stdout)
        XCTAssertTrue(refused.stderr.contains("1 Assembly could not be canceled on \(base):"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("HTTP_500"), refused.stderr)

        let canceled = await CLIHarness.run(["cancel", manifest, "--endpoint", base])
        XCTAssertEqual(canceled.status, 0, canceled.stderr)
        XCTAssertTrue(canceled.stdout.contains(": ASSEMBLY_CANCELED\n"), canceled.stdout)
        XCTAssertTrue(canceled.stdout.hasSuffix("Canceled 1 Assembly.\n"), canceled.stdout)
        let onTheEngine = await eventually(within: .seconds(5)) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: server.data.path + "/assemblies")) ?? []).filter { $0.hasSuffix(".json") }
            return names.contains { (try? String(contentsOfFile: server.data.path + "/assemblies/" + $0, encoding: .utf8))?.contains("ASSEMBLY_CANCELED") == true }
        }
        XCTAssertTrue(onTheEngine, "the Assembly is canceled on the engine the run used")
    }

    func testCancelTakesOnlyAnEndpointItCanUse() async {
        let result = await CLIHarness.run(["cancel", "pipeline.yml", "--endpoint", "ftp://example.com"])
        XCTAssertEqual(result.status, 64, result.stderr)
    }
}
