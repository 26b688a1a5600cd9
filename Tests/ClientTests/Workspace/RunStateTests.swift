import Basics
@testable import Client
import Foundation
import TestSupport
import XCTest

/// Run state is kept as a journal of changes: every change survives a killed process, a run
/// writes each change once, and readers see the journal before it is folded in.
final class RunStateTests: XCTestCase {
    func testChangesAreJournaledReadBackAndFolded() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/run-state.json"
        let state = try RunState(path: path)
        for index in 0..<200 {
            try await state.set(.init(assemblyID: "id-\(index)", assemblyURL: nil, endpoint: "local"), for: "plan-\(index)")
        }
        try await state.set(.init(assemblyID: "id-7", assemblyURL: "http://x/7", endpoint: "local"), for: "plan-7")
        try await state.set(nil, for: "plan-8")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing rewritten while the run goes on")
        let journal = try String(contentsOfFile: RunState.journal(of: path), encoding: .utf8)
        XCTAssertEqual(journal.split(separator: "\n").count, 202, "one line per change")

        // A process killed in the middle of a line leaves a line that does not read: skipped.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: RunState.journal(of: path)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"plan_id":"plan-9","entry":{"assembly_"#.utf8))
        try handle.close()

        // A change after it starts a line of its own, and is read.
        try await state.set(.init(assemblyID: "id-200", assemblyURL: nil, endpoint: "local"), for: "plan-200")

        let read = try RunState.read(path)
        func local(_ plan: String) -> RunState.Entry? { read[RunState.key(plan, endpoint: "local")] }
        XCTAssertEqual(local("plan-200")?.assemblyID, "id-200", "the change after a torn line is kept")
        XCTAssertEqual(read.count, 200)
        XCTAssertEqual(local("plan-7")?.assemblyURL, "http://x/7")
        XCTAssertNil(local("plan-8"))
        XCTAssertEqual(local("plan-9")?.assemblyID, "id-9", "the torn line changed nothing")

        // The next run folds the journal into the file, which then reads the same.
        let next = try RunState(path: path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: RunState.journal(of: path)))
        XCTAssertEqual(try RunState.read(path), read)
        let entry = await next.entry("plan-7", endpoint: "local")
        XCTAssertEqual(entry?.assemblyURL, "http://x/7")
    }

    /// A run against another endpoint (a dead `--endpoint`) records its Assembly beside this
    /// endpoint's, never over it; a file of older versions (keyed by plan id alone) reads as before.
    func testEachEndpointKeepsItsOwnEntry() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/run-state.json"
        let (usual, other) = ("0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210")
        try folder.write("run-state.json", #"{"plan-1": {"assembly_id": "\#(usual)", "assembly_url": "http://serve/assemblies/\#(usual)", "endpoint": "http://serve"}}"#)
        let state = try RunState(path: path)
        try await state.set(.init(assemblyID: other, assemblyURL: nil, endpoint: "http://127.0.0.1:1", partOf: "planned"), for: "plan-1")
        let kept = await state.entry("plan-1", endpoint: "http://serve")
        XCTAssertEqual(kept?.assemblyID, usual, "the usual endpoint's Assembly is still known")
        let elsewhere = await state.entry("plan-1", endpoint: "http://127.0.0.1:1")
        XCTAssertEqual(elsewhere?.assemblyID, other)
        try await state.fold(keeping: ["plan-1"])
        let read = try RunState.read(path)
        XCTAssertEqual(read.count, 2, "\(read)")
        XCTAssertEqual(read[RunState.key("plan-1", endpoint: "http://127.0.0.1:1")]?.partOf, "planned")
        let workspace = Workspace(directory: folder.path, resultsPath: folder.path + "/results.json")
        let started = try workspace.startedAssemblies(in: [path], address: "http://serve", endpoint: "http://serve")
        XCTAssertEqual(started.mapValues(\.id), ["plan-1": usual])
        try await state.set(nil, for: "plan-1")
        XCTAssertTrue(try RunState.read(path).isEmpty, "a plan forgotten is forgotten on every endpoint")
    }

    func testAnUnreadableStateStopsTheRunAndIsLeftAsItWas() throws {
        let directory = try TemporaryDirectory(prefix: "run-state")
        defer { directory.remove() }
        let path = try directory.write("run-state.json", "{\"a\": {\"assembly_id\": 7}")
        XCTAssertThrowsError(try RunState(path: path)) { error in
            XCTAssertTrue("\(error)".contains("move it away to start afresh"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "{\"a\": {\"assembly_id\": 7}", "not overwritten")
    }

    func testStatusAndCancelSeeARunThatHasOnlyJournaledSoFar() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let workspace = Workspace(directory: folder.path, resultsPath: folder.path + "/results.json")
        let state = try RunState(path: workspace.runStateFile(shard: (2, 3)))
        try await state.set(.init(assemblyID: "0123456789abcdef0123456789abcdef", assemblyURL: "http://x/abc", endpoint: "local"), for: "plan-1")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.runStateFile(shard: (2, 3))), "only the journal so far")
        XCTAssertEqual(try workspace.runStateFiles, [workspace.runStateFile(shard: (2, 3))])
        XCTAssertEqual(try workspace.startedAssemblies(address: nil)["plan-1"]?.id, "0123456789abcdef0123456789abcdef")
    }

    /// A stored URL on another origin than the endpoint's is never asked (status, cancel): the
    /// endpoint's own URL for the id is.
    func testAStoredURLElsewhereIsReplacedByTheEndpointsOwn() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let workspace = Workspace(directory: folder.path, resultsPath: folder.path + "/results.json")
        let state = try RunState(path: workspace.runStateFile(shard: nil))
        let id = "0123456789abcdef0123456789abcdef"
        try await state.set(.init(assemblyID: id, assemblyURL: "https://evil.example/assemblies/" + id, endpoint: "https://api.example"), for: "foreign")
        try await state.set(.init(assemblyID: id, assemblyURL: "https://api.example:443/assemblies/" + id + "?x", endpoint: "https://api.example"), for: "own")
        try await state.set(.init(assemblyID: id, assemblyURL: "https://api.example/assemblies/" + id + "/../../evil?x=", endpoint: "https://api.example"), for: "climbing")
        try await state.set(.init(assemblyID: id, assemblyURL: "https://api.example/assemblies/" + id + "/%2e%2e/x", endpoint: "https://api.example"), for: "encoded")
        try await state.set(.init(assemblyID: id, assemblyURL: "https://api.example/assemblies/ffffffffffffffffffffffffffffffff", endpoint: "https://api.example"), for: "other")
        let started = try workspace.startedAssemblies(address: "https://api.example")
        XCTAssertEqual(started["foreign"]?.url, "https://api.example/assemblies/" + id)
        for name in ["climbing", "encoded", "other"] {
            XCTAssertEqual(started[name]?.url, "https://api.example/assemblies/" + id, "\(name): only this Assembly's own path")
        }
        XCTAssertEqual(started["own"]?.url, "https://api.example:443/assemblies/" + id + "?x")
        XCTAssertNil(try workspace.startedAssemblies(address: nil)["own"]?.url, "the embedded engine's are never asked by URL")
    }
}
