import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// `run --no-wait` leaves the Assemblies running once their files are up; `status --wait`
/// collects them into the results and downloads, as a waiting run would have.
final class AsyncRunTests: XCTestCase {
    private let environment = ["TRANSLOADIT_SECRET": "unchecked"]

    private func project(endpoint: String, extra: [String] = []) throws -> TemporaryDirectory {
        let directory = try TestProject.hashing(
            prefix: "async-run", endpoint: endpoint, files: ["a.bin": Data(repeating: 1, count: 3000), "b.bin": Data(repeating: 2, count: 2000)], batch: "1")
        if !extra.isEmpty {
            let manifest = directory.path + "/pipeline.yml"
            try (try String(contentsOfFile: manifest, encoding: .utf8) + extra.joined(separator: "\n") + "\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        }
        return directory
    }

    private func statuses(_ directory: TemporaryDirectory) throws -> [String] {
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        return (results["assemblies"]?.arrayValue ?? []).compactMap { $0["status"]?.stringValue }
    }

    func testARunLeftRunningIsCollectedLater() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let nothing = await CLIHarness.run(["status", manifest, "--wait"], environment: environment)
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("nothing to collect"), nothing.stderr)

        let left = await CLIHarness.run(["run", manifest, "--no-wait"], environment: environment)
        XCTAssertEqual(left.status, 0, left.stderr)
        XCTAssertTrue(left.stdout.contains("0 failed, 2 left running"), left.stdout)
        XCTAssertTrue(left.stderr.contains("collect them with 'pipeline status"), left.stderr)
        XCTAssertEqual(try statuses(directory), ["ASSEMBLY_EXECUTING", "ASSEMBLY_EXECUTING"])

        let collected = await CLIHarness.run(["status", manifest, "--wait"], environment: environment)
        XCTAssertEqual(collected.status, 0, collected.stderr)
        XCTAssertTrue(collected.stdout.hasPrefix("Run: 2 completed, 0 cached, 0 failed."), collected.stdout)
        XCTAssertEqual(try statuses(directory), ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"])
        XCTAssertEqual(server.requests.filter { $0.hasPrefix("POST /assemblies") }.count, 2, "nothing was created twice: \(server.requests)")
        XCTAssertEqual(server.createdUploads(), 2, "nothing was uploaded twice")
    }

    func testTheEmbeddedEngineAndAPolicyWantingNotificationsRefuseIt() async throws {
        let local = try project(endpoint: "local")
        defer { local.remove() }
        let embedded = await CLIHarness.run(["run", local.path + "/pipeline.yml", "--no-wait"])
        XCTAssertEqual(embedded.status, 1)
        XCTAssertTrue(embedded.stderr.contains("the embedded engine (endpoint: local) stops with this command"), embedded.stderr)

        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)", extra: ["policy: policy.yml"])
        defer { directory.remove() }
        try directory.write("policy.yml", """
            version: 1
            notify_url: {allowed: ["https://hooks.example.com/done"], required_for_no_wait: true}
            robots:
              /file/hash: {algorithm: {type: string}}
            """)
        let refused = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--no-wait"], environment: environment)
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("the policy requires a notify_url of a run that does not wait, and job 'hashes' has none"), refused.stderr)
        XCTAssertTrue(server.requests.isEmpty)
        let waiting = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: environment)
        XCTAssertEqual(waiting.status, 0, "a run that waits needs none: \(waiting.stderr)")
    }

    /// The embedded engine notifies public addresses only: one it may not reach is said at once.
    func testTheEmbeddedEngineSaysANotifyURLItMayNotReach() async throws {
        let directory = try project(endpoint: "local", extra: ["    notify_url: http://127.0.0.1:9/hook"])
        defer { directory.remove() }
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("127.0.0.1 is a loopback address"), run.stderr)
        XCTAssertTrue(run.stderr.contains("given up"), run.stderr)
    }
}
