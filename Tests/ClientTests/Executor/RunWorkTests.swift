import Basics
@testable import Client
import Crypto
import Foundation
import Planning
import XCTest

final class RunWorkTests: XCTestCase {
    private let instructions: JSONValue = .object(["steps": .object([
        "small": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(100)]),
        "large": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(800)]),
    ])])
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func file(_ path: String, _ content: String) -> PlannedFile {
        PlannedFile(path: path, size: Int64(content.utf8.count), digest: SHA256Digest(hex: SHA256.hex(content))!)
    }

    private func result(_ source: String, _ step: String, expires: Date? = nil) -> RunResults.ResultFile {
        RunResults.ResultFile(source: source, name: step + "-" + source, url: "https://cdn.example.com/\(step)/\(source)", size: 1, mime: "image/png", meta: .object([:]), expires: expires)
    }

    /// The last results: one entry in which `done` files have every step of `instructions`.
    private func last(_ files: [PlannedFile], expires: Date? = nil, instructions: JSONValue? = nil) throws -> (RunResults, StepCache) {
        let digests = try XCTUnwrap(StepDigests.of(instructions ?? self.instructions))
        var entry = RunResults.Entry(
            job: "photos", planID: String(repeating: "0", count: 32), assemblyID: nil, assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil,
            cached: false, files: files, results: [:])
        for file in files {
            entry.steps[ExactName(file.path)] = digests
            for step in digests.keys { entry.results[step, default: []].append(result(file.path, step, expires: expires)) }
        }
        let results = RunResults(pipeline: "p", assemblies: [entry])
        var cache = StepCache()
        cache.add(entry, available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        return (results, cache)
    }

    private func plan(_ files: [PlannedFile], instructions: JSONValue? = nil) -> Plan {
        Plan(pipeline: "p", manifest: "pipeline.yml", assemblies: [PlannedAssembly(job: "photos", instructions: instructions ?? self.instructions, files: files)])
    }

    func testAFileOfKnownContentUnderANewNameIsCachedAndItsResultsFollowIt() throws {
        let (results, cache) = try last([file("a.png", "A"), file("b.png", "B")])
        let work = RunWork(plan([file("renamed/a.png", "A"), file("b.png", "B")]), last: results, cache: cache, available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertTrue(work.units.isEmpty)
        let entry = try XCTUnwrap(work.parts[0].entry([:]))
        XCTAssertTrue(entry.cached)
        XCTAssertEqual(entry.results["small"]?.compactMap(\.source), ["b.png", "renamed/a.png"])
        XCTAssertEqual(entry.results["small"]?.last?.url, "https://cdn.example.com/small/a.png", "the result made from the same bytes")
        XCTAssertEqual(Set(entry.steps.keys), ["renamed/a.png", "b.png"])
        XCTAssertEqual(work.filesPerStep(job: "photos"), ["small": 0, "large": 0])
    }

    func testAResultFollowingARenamedSourceTakesItsNameUnlessItHadItsOwn() {
        let made = RunResults.ResultFile(
            source: "photos/IMG_1.jpg", name: "IMG_1.webp", url: "https://cdn.example.com/x", size: 1, mime: "image/webp", meta: .object([:]), localPath: "out/IMG_1.webp")
        let moved = RunWork.Part.moved(made, to: "trip/beach.jpg")
        XCTAssertEqual([moved.source, moved.name, moved.localPath], ["trip/beach.jpg", "beach.webp", nil])
        var own = made
        own.name = "contact-sheet.png"
        XCTAssertEqual(RunWork.Part.moved(own, to: "trip/beach.jpg").name, "contact-sheet.png")
    }

    func testOnlyTheMissingStepsRunAndFilesMissingTheSameStepsShareAnAssembly() throws {
        let (results, cache) = try last([file("a.png", "A"), file("b.png", "B")])
        var changed = instructions
        changed = .object(["steps": .object([
            "small": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(120)]),
            "large": instructions["steps"]?["large"] ?? .null,
        ])])
        let work = RunWork(plan([file("a.png", "A"), file("b.png", "B"), file("c.png", "C")], instructions: changed), last: results, cache: cache, available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertEqual(work.units.count, 2)
        XCTAssertEqual(work.units[0].files.map(\.path), ["a.png", "b.png"])
        XCTAssertEqual(work.units[0].instructions["steps"]?.objectValue?.keys.sorted(), ["small"])
        XCTAssertEqual(work.units[1].files.map(\.path), ["c.png"])
        XCTAssertEqual(work.units[1].instructions, changed, "a new file runs every step")
        XCTAssertEqual(work.filesPerStep(job: "photos"), ["small": 3, "large": 1])
        XCTAssertEqual(UsageEstimate(work.plan(of: plan([]))).executions, ["/image/resize": 4])

        // The units' entries and what was carried over make one entry; a failed unit's steps are not recorded as done.
        var made = RunResults.Entry(
            job: "photos", planID: work.units[0].id, assemblyID: "1111", assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil, cached: false,
            files: work.units[0].files, results: ["small": [result("a.png", "new"), result("b.png", "new")]])
        let failed = RunResults.Entry(
            job: "photos", planID: work.units[1].id, assemblyID: "2222", assemblyURL: nil, status: "ROBOT_FAILED", message: "broken", cached: false,
            files: work.units[1].files, results: [:])
        let entry = try XCTUnwrap(work.parts[0].entry([made.planID: made, failed.planID: failed]))
        XCTAssertEqual(entry.status, "ROBOT_FAILED")
        XCTAssertEqual(entry.assemblyID, "2222")
        XCTAssertEqual(entry.results["small"]?.map(\.name), ["new-a.png", "new-b.png"], "the new results replace the old ones")
        XCTAssertEqual(entry.results["large"]?.map(\.name), ["large-a.png", "large-b.png"])
        XCTAssertEqual(Set(entry.steps.keys), ["a.png", "b.png"])
        XCTAssertNil(entry.steps["c.png"])
        // While a unit is still going, the entry says the run did not finish it.
        made.status = "ASSEMBLY_COMPLETED"
        XCTAssertEqual(work.parts[0].entry([made.planID: made])?.status, "INTERRUPTED")
    }

    // Two spellings of one name (composed, decomposed) that Swift's `String` takes as one: two files on disk.
    private let composed = "Cr\u{E8}me.png", decomposed = "Cre\u{300}me.png"

    private func bytes(_ paths: [String?]?) -> [[UInt8]] { (paths ?? []).map { Array(($0 ?? "").utf8) } }

    func testATwinWhoseNameDiffersOnlyByNormalizationIsAnotherSource() throws {
        let (results, cache) = try last([file(composed, "A")])
        let work = RunWork(
            plan([file(decomposed, "B"), file(composed, "A")]), last: results, cache: cache, available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertEqual(work.units.map { bytes($0.files.map(\.path)) }, [bytes([decomposed])], "only the new twin runs")
        let unit = try XCTUnwrap(work.units.first)
        let made = RunResults.Entry(
            job: "photos", planID: unit.id, assemblyID: "1111", assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil, cached: false,
            files: unit.files, results: ["small": [result(decomposed, "small")], "large": [result(decomposed, "large")]])
        let entry = try XCTUnwrap(work.parts[0].entry([unit.id: made]))
        for step in ["small", "large"] {
            XCTAssertEqual(bytes(entry.results[step]?.map(\.source)), bytes([decomposed, composed]), "each its own result, in byte order")
            XCTAssertEqual(bytes(entry.results[step]?.map(\.url)), bytes(["https://cdn.example.com/\(step)/\(decomposed)", "https://cdn.example.com/\(step)/\(composed)"]))
        }
        XCTAssertEqual(entry.steps.count, 2, "both are known for next time")
    }

    func testAByteCopyOfATwinSharesItsWorkAndTakesOnlyItsResults() throws {
        let (results, cache) = try last([file(decomposed, "B"), file(composed, "A")])
        let work = RunWork(
            plan([file(decomposed, "B"), file(composed, "A"), file("copy.png", "B")]), last: results, cache: cache,
            available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertTrue(work.units.isEmpty, "the copy's content is known")
        let small = try XCTUnwrap(work.parts[0].entry([:])?.results["small"])
        XCTAssertEqual(bytes(small.map(\.source)), bytes([decomposed, composed, "copy.png"]))
        XCTAssertEqual(bytes([small.last?.url]), bytes(["https://cdn.example.com/small/\(decomposed)"]), "the decomposed twin's result, not the composed one's")
    }

    func testAnExpiredTemporaryResultNeverDownloadedIsMadeAgain() throws {
        let (results, cache) = try last([file("a.png", "A")], expires: now.addingTimeInterval(-1))
        let work = RunWork(plan([file("a.png", "A")]), last: results, cache: cache, available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertEqual(work.units.count, 1)
        XCTAssertEqual(work.units[0].instructions, instructions)
    }

    func testAJobCachedPerAssemblyRunsWholeUnlessItsPlanCompleted() throws {
        let template: JSONValue = .object(["template_id": .string("abc")])
        let planned = plan([file("a.png", "A")], instructions: template)
        let fresh = RunWork(planned, last: nil, cache: StepCache(), available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertEqual(fresh.units, planned.assemblies)
        XCTAssertNil(fresh.filesPerStep(job: "photos"))
        let done = RunResults.Entry(
            job: "photos", planID: planned.assemblies[0].id, assemblyID: "3333", assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil, cached: false,
            files: planned.assemblies[0].files, results: ["t": [result("a.png", "t")]])
        let cached = RunWork(planned, last: RunResults(pipeline: "p", assemblies: [done]), cache: StepCache(), available: ResultAvailability(localResults: nil, downloadsBase: nil, now: now))
        XCTAssertTrue(cached.units.isEmpty)
        XCTAssertEqual(cached.parts[0].entry([:])?.cached, true)
    }
}
