import Basics
@testable import Client
import Foundation
import TestSupport
import XCTest

/// Which of the embedded engine's Assemblies the manifests of one folder still need.
final class EngineReferencesTests: XCTestCase {
    private func workspace(_ folder: TemporaryDirectory, _ name: String) -> Workspace {
        Workspace(directory: folder.path, resultsPath: folder.path + "/\(name)-results.json", manifestName: name, manifestFile: name + ".yml")
    }

    private func results(naming ids: [String], engine: String) -> RunResults {
        let files = ids.map { id in
            RunResults.ResultFile(source: "a.png", name: "a.png", url: URL(fileURLWithPath: engine + "/results/\(id)/f/a.png").absoluteString, size: 1, mime: nil, meta: .object([:]))
        }
        return RunResults(pipeline: "p", assemblies: [RunResults.Entry(
            job: "j", planID: String(repeating: "0", count: 32), assemblyID: nil, assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil,
            cached: false, files: [], results: ["s": files])])
    }

    func testEveryManifestsResultsAndRunStateAreKeptAndAnUnknownOneStopsTheCollection() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (workspace(folder, "a"), workspace(folder, "b"))
        let (one, two, three) = (String(repeating: "1", count: 32), String(repeating: "2", count: 32), String(repeating: "3", count: 32))
        try a.recordEngineReferences(results(naming: [one], engine: a.engineDirectory), shard: nil)
        // A result outside the engine's results folder, or an id that is not one, names nothing.
        try b.recordEngineReferences(results(naming: ["../../x", two], engine: b.engineDirectory), shard: (1, 2))
        XCTAssertEqual(try a.engineReferencesOfEveryManifest().assemblies, [one, two])

        // A run of b killed part-way: what its state names is kept too.
        let state = try RunState(path: b.runStateFile(shard: nil))
        try await state.set(.init(assemblyID: three, assemblyURL: nil, endpoint: "local"), for: "unit")
        XCTAssertEqual(try a.engineReferencesOfEveryManifest().assemblies, [one, two, three])

        // A manifest that ran with an older version (run state, no record) leaves what it needs unknown.
        let c = workspace(folder, "c")
        try FileManager.default.createDirectory(atPath: c.manifestStateDirectory, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: c.runStateFile(shard: nil)))
        XCTAssertThrowsError(try a.engineReferencesOfEveryManifest()) { error in
            XCTAssertTrue("\(error)".contains("manifest 'c'"), "\(error)")
        }
        // One that only planned names nothing.
        try FileManager.default.removeItem(atPath: c.runStateFile(shard: nil))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: c.digestCacheFile))
        XCTAssertEqual(try a.engineReferencesOfEveryManifest().assemblies, [one, two, three])
    }

    /// A first run killed part-way (a journal, no record yet) names what it made; `gc` can take
    /// a manifest's own results as they are now instead of its record.
    func testAKilledFirstRunNamesWhatItMadeAndTheCurrentResultsReplaceTheRecord() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (workspace(folder, "a"), workspace(folder, "b"))
        let (one, two, three) = (String(repeating: "1", count: 32), String(repeating: "2", count: 32), String(repeating: "3", count: 32))
        try a.recordEngineReferences(EngineReferences(whole: [one]))
        let state = try RunState(path: b.runStateFile(shard: nil))
        try await state.set(.init(assemblyID: two, assemblyURL: nil, endpoint: "local"), for: "unit")
        XCTAssertFalse(FileManager.default.fileExists(atPath: b.runStateFile(shard: nil)), "only the journal is written")
        XCTAssertEqual(try a.engineReferencesOfEveryManifest().assemblies, [one, two])
        XCTAssertEqual(try a.engineReferencesOfEveryManifest(current: EngineReferences(whole: [three])).assemblies, [two, three])
        XCTAssertEqual(try b.engineReferencesOfEveryManifest(current: EngineReferences()).assemblies, [one, two], "its own run state still counts")
    }

    /// An Assembly the results name only through result files is kept in part (those files'
    /// folders), even when a run state names it too; one an entry names by id, a run state alone,
    /// or a record an older version wrote (a list of ids) is kept whole.
    func testAssembliesNamedOnlyThroughResultFilesAreKeptInPart() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (workspace(folder, "a"), workspace(folder, "b"))
        let (one, two, three) = (String(repeating: "1", count: 32), String(repeating: "2", count: 32), String(repeating: "3", count: 32))
        var named = results(naming: [one, two], engine: a.engineDirectory)
        named.assemblies[0].assemblyID = two
        try a.recordEngineReferences(named, shard: nil)
        let state = try RunState(path: a.runStateFile(shard: nil))
        try await state.set(.init(assemblyID: one, assemblyURL: nil, endpoint: "local"), for: "old")
        try await state.set(.init(assemblyID: three, assemblyURL: nil, endpoint: "local"), for: "killed")
        let references = try a.engineReferencesOfEveryManifest()
        XCTAssertEqual(references.whole, [two, three])
        XCTAssertEqual(references.files, [one: ["f"]])
        // What an older version wrote keeps every Assembly it lists whole.
        try FileManager.default.createDirectory(atPath: b.manifestStateDirectory, withIntermediateDirectories: true)
        try Data("[\"\(one)\"]".utf8).write(to: URL(fileURLWithPath: b.engineReferencesFile(shard: nil)))
        XCTAssertEqual(try a.engineReferencesOfEveryManifest().whole, [one, two, three])
        XCTAssertEqual(try a.engineReferencesOfEveryManifest().files, [:])
    }
}
