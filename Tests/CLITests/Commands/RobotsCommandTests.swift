import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline robots`, and the catalog checks as a user meets them in `validate`.
final class RobotsCommandTests: XCTestCase {
    func testListsExplainsAndSuggests() async throws {
        let list = await CLIHarness.run(["robots"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("  /image/resize "), list.stdout)
        XCTAssertTrue(list.stdout.contains("run on the local engine"), list.stdout)
        let one = await CLIHarness.run(["robots", "image/resize"])
        XCTAssertEqual(one.status, 0)
        XCTAssertTrue(one.stdout.hasPrefix("/image/resize: "), one.stdout)
        XCTAssertTrue(one.stdout.contains("Local engine: runs it"), one.stdout)
        XCTAssertTrue(one.stdout.contains("resize_strategy"), one.stdout)
        let json = await CLIHarness.run(["robots", "/video/encode", "--json"])
        let entry = try XCTUnwrap(try JSONValue.parse(Data(json.stdout.utf8)).arrayValue?.first)
        XCTAssertEqual(entry["local"], .bool(true))
        XCTAssertNotNil(entry["parameters"]?["preset"])
        let merge = await CLIHarness.run(["robots", "/video/merge", "--json"])
        XCTAssertEqual(try JSONValue.parse(Data(merge.stdout.utf8)).arrayValue?.first?["local"], .bool(false))
        let unknown = await CLIHarness.run(["robots", "/image/resise"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("did you mean '/image/resize'?"), unknown.stderr)
    }

    func testCyclesAndRobotsTheLocalEngineCannotRunAreErrorsBeforeAnythingRuns() async throws {
        let directory = try TemporaryDirectory(prefix: "robots")
        defer { directory.remove() }
        try directory.write("cycle.yml", """
            version: 1
            assemblies:
              v:
                inputs: [x]
                steps:
                  a: {robot: /file/hash, use: c}
                  b: {robot: /file/hash, use: a}
                  c: {robot: /file/hash, use: [b]}
            """)
        let cycle = await CLIHarness.run(["validate", directory.path + "/cycle.yml"])
        XCTAssertEqual(cycle.status, 1)
        XCTAssertTrue(cycle.stderr.contains("cycle.yml:7:") && cycle.stderr.contains("a -> c -> b -> a"), cycle.stderr)
        try directory.write("local.yml", """
            version: 1
            endpoint: local
            assemblies:
              v:
                inputs: [x]
                steps:
                  merged: {robot: /video/merge, use: ":original"}
            """)
        let local = await CLIHarness.run(["validate", directory.path + "/local.yml", "--json"])
        XCTAssertEqual(local.status, 1)
        let diagnostic = try XCTUnwrap(try JSONValue.parse(Data(local.stdout.utf8))["diagnostics"]?.arrayValue?.first)
        XCTAssertEqual(diagnostic["id"], .string("manifest.not-local"))
        XCTAssertEqual(diagnostic["line"], .int(7))
        // A run sent elsewhere with --endpoint is not held to the local engine's robots.
        try directory.write("x", "x")
        let elsewhere = await CLIHarness.run(
            ["run", directory.path + "/local.yml", "--endpoint", "http://127.0.0.1:9", "--timeout", "1s"], environment: ["TRANSLOADIT_SECRET": "s"])
        XCTAssertFalse(elsewhere.stderr.contains("manifest.not-local"), elsewhere.stderr)
    }
}
