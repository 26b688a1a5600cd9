import Basics
@testable import Client
import Crypto
import Foundation
import Planning
import TestSupport
import XCTest

/// What a run writes never holds less than the last good state: a failed entry never replaces a
/// completed one, older entries stay for sources the run left unsettled, and a failure on another
/// endpoint leaves the results where they were made.
final class GoodResultsTests: XCTestCase {
    private func file(_ path: String) -> PlannedFile { PlannedFile(path: path, size: 1, digest: SHA256.digest(path)) }

    private func planned(_ job: String, _ paths: [String]) -> PlannedAssembly {
        PlannedAssembly(job: job, instructions: .object(["steps": .object([:])]), files: paths.map(file))
    }

    private func entry(_ planned: PlannedAssembly, id: String? = nil, status: String = "ASSEMBLY_COMPLETED") -> RunResults.Entry {
        let results = status == "ASSEMBLY_COMPLETED"
            ? ["thumb": planned.files.map { RunResults.ResultFile(source: $0.path, name: $0.path, url: "http://e/\($0.path)", size: 1, mime: nil, meta: .object([:])) }] : [:]
        return RunResults.Entry(
            job: planned.job, planID: id ?? planned.id, assemblyID: nil, assemblyURL: nil, status: status, message: status == "ASSEMBLY_COMPLETED" ? nil : "it failed",
            cached: false, files: planned.files, results: results)
    }

    private func settle(last: RunResults, made: RunResults, planned: [PlannedAssembly], usual: String? = nil) throws -> GoodResults.Settled {
        let directory = try TemporaryDirectory(prefix: "good-results")
        defer { directory.remove() }
        try last.write(to: directory.path + "/results.json")
        var good = GoodResults(path: directory.path + "/results.json", usualEndpoint: usual)
        return good.settled(made, planned: planned)
    }

    func testAFailedEntryKeepsTheCompletedOneAndOlderEntriesStayForUnsettledSources() throws {
        let grown = planned("thumbs", ["a.png", "b.png", "d.png"]), same = planned("thumbs", ["c.png"]), other = planned("hashes", ["x.bin"])
        let older = entry(planned("thumbs", ["a.png", "b.png"]))
        let gone = entry(planned("thumbs", ["deleted.png"]))
        let last = RunResults(pipeline: "site", endpoint: "local", assemblies: [older, entry(same), entry(other), gone])
        let made = RunResults(pipeline: "site", endpoint: "local", assemblies: [
            entry(grown, status: "CANNOT_CONNECT"), entry(same, status: "INTERRUPTED"), entry(other),
        ])
        let settled = try settle(last: last, made: made, planned: [grown, same, other])
        XCTAssertEqual(settled.results.assemblies.map(\.planID), [grown.id, same.id, other.id, older.planID])
        XCTAssertEqual(settled.results.assemblies.map(\.status), ["CANNOT_CONNECT", "ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"])
        XCTAssertEqual(settled.results.assemblies[1].attempt?.status, "INTERRUPTED", "the failure is beside the good entry")
        XCTAssertEqual(settled.results.assemblies[1].attempt?.endpoint, "local")
        XCTAssertEqual(settled.own, [other.id], "only this run's own completed entry is downloaded")
        XCTAssertNil(settled.note)

        // Once the grown Assembly completes, the older entry of its sources goes.
        let done = RunResults(pipeline: "site", endpoint: "local", assemblies: [entry(grown), entry(same, status: "INTERRUPTED"), entry(other)])
        let next = try settle(last: settled.results, made: done, planned: [grown, same, other])
        XCTAssertEqual(next.results.assemblies.map(\.planID), [grown.id, same.id, other.id])
    }

    func testEverythingCompletedIsWrittenAsACleanRunWouldWriteIt() throws {
        let one = planned("thumbs", ["a.png"])
        let last = RunResults(pipeline: "site", endpoint: "local", assemblies: [entry(planned("thumbs", ["gone.png"]))])
        let made = RunResults(pipeline: "site", endpoint: "local", assemblies: [entry(one)])
        let settled = try settle(last: last, made: made, planned: [one])
        XCTAssertEqual(settled.results, made)
        XCTAssertEqual(settled.own, [one.id])
    }

    func testAFailureOnAnotherEndpointLeavesTheResultsWhereTheyWereMade() throws {
        let first = planned("thumbs", ["a.png"]), second = planned("thumbs", ["b.png"]), added = planned("thumbs", ["c.png"])
        let last = RunResults(pipeline: "site", endpoint: "local", assemblies: [entry(first), entry(second)])
        let made = RunResults(pipeline: "site", endpoint: "http://127.0.0.1:1", assemblies: [
            entry(first, status: "CANNOT_CONNECT"), entry(second), entry(added, status: "CANNOT_CONNECT"),
        ])
        let settled = try settle(last: last, made: made, planned: [first, second, added], usual: "local")
        XCTAssertEqual(settled.results.endpoint, "local")
        XCTAssertEqual(settled.results.assemblies.map(\.status), ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED", "CANNOT_CONNECT"])
        XCTAssertEqual(settled.results.assemblies[0].attempt?.endpoint, "http://127.0.0.1:1")
        XCTAssertNil(settled.results.assemblies[1].attempt, "completed there: nothing to record")
        XCTAssertEqual(settled.own, [])
        XCTAssertEqual(settled.note?.hasSuffix("the 1 it completed there are found again by the next run there"), true, settled.note ?? "")

        // A run on the manifest's own endpoint is a switch of endpoint: its results replace the others.
        let switched = try settle(last: last, made: made, planned: [first, second, added], usual: "http://127.0.0.1:1")
        XCTAssertEqual(switched.results, made)
    }

    func testAnAttemptReadsBackAndAForgedOneIsMadePrintable() throws {
        let one = planned("thumbs", ["a.png"])
        var good = entry(one)
        good.attempt = RunResults.Attempt(entry(one, status: "CANNOT_CONNECT"), endpoint: "http://127.0.0.1:1")
        let results = RunResults(pipeline: "site", endpoint: "local", assemblies: [good])
        let directory = try TemporaryDirectory(prefix: "good-results")
        defer { directory.remove() }
        try results.write(to: directory.path + "/results.json")
        XCTAssertEqual(RunResults.load(directory.path + "/results.json"), results)
        let forged = RunResults.Attempt(json: .object(["status": .string("X\u{1B}[2J"), "assembly_id": .string("../x")]))
        XCTAssertEqual(forged?.status, "X\u{1B}[2J".printable)
        XCTAssertFalse(forged?.status.contains("\u{1B}") ?? true, "no escape sequence reaches a terminal")
        XCTAssertNil(forged?.assemblyID, "an id that is not one is dropped")
        XCTAssertNil(RunResults.Attempt(json: .object([:])), "an attempt needs its status")
    }
}
