import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// Ids, state files and results that a lying server or a forged file hands the runner name
/// nothing outside the workspace and print nothing to the terminal but text.
final class HostileStateTests: XCTestCase {
    private func project(endpoint: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "hostile-state")
        try directory.write("files/a.bin", data: Data(repeating: 7, count: 1000))
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: \(endpoint)
            auth:
              key: test-key
            results: results.json
            assemblies:
              hashes:
                inputs: ["files/*.bin"]
                steps:
                  hash: {robot: /file/hash, use: ":original"}
            """)
        return directory
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

        try FileManager.default.removeItem(atPath: directory.path + "/.pipeline/engine")
        try FileManager.default.createDirectory(atPath: directory.path + "/.pipeline/manifests/pipeline", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/.pipeline/manifests/pipeline/run-state.json.lock", withDestinationPath: elsewhere.path + "/created")
        let lock = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(lock.status, 1, lock.stderr)
        XCTAssertTrue(lock.stderr.contains("symbolic link"), lock.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.path + "/created"), "the lock link created a file outside")
    }
}
