import Foundation
import Spec
import Basics
import Crypto
@testable import Planning
import XCTest

final class PlanTests: XCTestCase {
    private let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    // MARK: batches

    func testBatches() {
        let seven = (1...7).map { "f\($0)" }
        XCTAssertEqual(Planner.batches(of: seven, .count(1)).map { Array(seven[$0]) }, seven.map { [$0] })
        XCTAssertEqual(Planner.batches(of: seven, .all).map { Array(seven[$0]) }, [seven])
        XCTAssertEqual(Planner.batches(of: [], .count(3)), [])
        XCTAssertEqual(Planner.batches(of: [], .all), [])
        for size in [2, 3, 7, 50] {
            let ranges = Planner.batches(of: seven, .count(size))
            XCTAssertEqual(ranges.flatMap { Array($0) }, Array(0..<7), "every file once, in order (\(size))")
            XCTAssertTrue(ranges.allSatisfy { $0.count <= size && !$0.isEmpty }, "\(size): \(ranges)")
        }
    }

    func testBatchesAreAnchoredOnPathsSoOneNewFileChangesLittle() {
        let paths = (0..<2000).map { String(format: "photos/%05d.jpg", $0 * 2) }
        for size in [4, 10, 100] {
            let before = Planner.batches(of: paths, .count(size)).map { Array(paths[$0]) }
            XCTAssertTrue(before.allSatisfy { $0.count <= size }, "at most \(size) files")
            XCTAssertGreaterThan(Double(paths.count) / Double(before.count), Double(size) * 0.6, "mostly full: \(before.count) Assemblies")
            var redone: [Int] = []
            for inserted in stride(from: 1, to: 4000, by: 97).map({ String(format: "photos/%05d.jpg", $0) }) {
                let changed = (paths + [inserted]).sorted()
                let after = Set(Planner.batches(of: changed, .count(size)).map { Array(changed[$0]) })
                redone.append(after.subtracting(before).count)
            }
            // Cutting by position, a file added early would change nearly every Assembly after it.
            let average = Double(redone.reduce(0, +)) / Double(redone.count)
            XCTAssertLessThanOrEqual(average, 3, "batch \(size): \(redone)")
            XCTAssertLessThanOrEqual(redone.max() ?? 0, 15, "batch \(size): \(redone)")
        }
    }

    // MARK: files

    func testFilesWhoseNamesDifferOnlyByNormalizationAreTwoFiles() {
        let composed = PlannedFile(path: "img/Cr\u{E8}me.jpg", size: 3, digest: SHA256.digest("abc"))
        let decomposed = PlannedFile(path: "img/Cre\u{300}me.jpg", size: 3, digest: SHA256.digest("abc"))
        XCTAssertNotEqual(composed, decomposed)
        XCTAssertEqual(Set([composed, decomposed, composed]).count, 2)
        var seen = composed
        seen.modified = 1
        XCTAssertEqual(seen, composed, "when it was seen does not matter")
        XCTAssertEqual(Set([seen, composed]).count, 1)
    }

    // MARK: ids

    func testIdIsThirtyTwoLowercaseHexDigits() {
        let id = PlannedAssembly(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: [PlanFixtures.file("a.png")]).id
        XCTAssertEqual(id.count, 32)
        XCTAssertTrue(id.allSatisfy { "0123456789abcdef".contains($0) }, id)
    }

    /// The id is the SHA-256 of `{"files":[[path,size,sha256]],"instructions":...,"job":...}`; pinning
    /// it catches an accidental change of the canonical form, which would re-run every Assembly.
    func testIdIsStableAcrossVersions() {
        let instructions = JSONValue.object(["steps": .object(["thumb": .object(["robot": .string("/image/resize"), "width": .int(200)])])])
        let assembly = PlannedAssembly(job: "thumbs", instructions: instructions, files: [PlannedFile(path: "a.png", size: 3, sha256: abc)])
        XCTAssertEqual(assembly.id, "dd25c756083f8bf1ac0524854168d462")
        XCTAssertEqual(PlannedAssembly.id(job: "thumbs", instructions: instructions, files: assembly.files), assembly.id)
    }

    func testIdIsTheDigestOfTheCanonicalJSON() {
        let files = [
            PlannedFile(path: "dir/\"quoted\" back\\slash \u{1}tab\t é.png", size: 12_345_678_901, digest: SHA256.digest("a")),
            PlannedFile(path: "b", size: 0, digest: SHA256.digest("b")),
        ]
        let instructions = JSONValue.object(["steps": .object([
            "z": .array([.int(-1), .double(1.5), .null, .bool(true), .object([:]), .array([])]), "a": .string("x\ny\u{7F}"),
        ])])
        let canonical = JSONValue.object([
            "job": .string("jöb\t"), "instructions": instructions,
            "files": .array(files.map { .array([.string($0.path), .int(Int($0.size)), .string($0.sha256)]) }),
        ]).serialized()
        XCTAssertEqual(PlannedAssembly.id(job: "jöb\t", instructions: instructions, files: files), String(SHA256.hex(canonical).prefix(32)))
        XCTAssertEqual(PlannedAssembly.id(job: "j", instructions: .object([:]), files: []),
                       String(SHA256.hex(#"{"files":[],"instructions":{},"job":"j"}"#).prefix(32)))
    }

    func testIdChangesWithEveryInput() {
        let files = [PlanFixtures.file("a.png"), PlanFixtures.file("b.png")]
        let base = PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: files)
        XCTAssertEqual(base, PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: files))

        var renamed = files
        renamed[1].path = "c.png"
        var edited = files
        edited[1].digest = PlanFixtures.file("b.png", "v2").digest
        var grown = files
        grown[0].size += 1
        let variants = [
            PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 320), files: files),
            PlannedAssembly.id(job: "previews", instructions: PlanFixtures.resize(width: 200), files: files),
            PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: renamed),
            PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: edited),
            PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: grown),
            PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: Array(files.reversed())),
            PlannedAssembly.id(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: [files[0]]),
        ]
        XCTAssertEqual(Set(variants + [base]).count, variants.count + 1, "\(variants)")
    }

    // MARK: JSON

    func testJSONShape() {
        let plan = PlanFixtures.samplePlan()
        let json = plan.json
        XCTAssertEqual(json["version"], .int(1))
        XCTAssertEqual(json["pipeline"], .string("site-images"))
        XCTAssertEqual(json["manifest"], .string("examples/site/pipeline.yml"))
        var summary = json["summary"]?.objectValue ?? [:]
        XCTAssertEqual(summary.removeValue(forKey: "usage"), UsageEstimate(plan).json)
        XCTAssertEqual(summary, ["jobs": .int(2), "assemblies": .int(3), "files": .int(4), "bytes": .int(30)])
        let first = json["assemblies"]?.arrayValue?.first
        XCTAssertEqual(first?["id"], .string(plan.assemblies[0].id))
        XCTAssertEqual(first?["job"], .string("thumbs"))
        XCTAssertEqual(first?["bytes"], .int(20))
        XCTAssertEqual(first?["files"]?.arrayValue?.first, .object([
            "path": .string("images/a.png"), "size": .int(10), "sha256": .string(PlanFixtures.file("images/a.png").sha256),
        ]))
        XCTAssertEqual(plan.jobs, ["thumbs", "previews"])
        XCTAssertEqual(plan.fileCount, 4)
        XCTAssertEqual(plan.byteCount, 30)
    }

    func testStreamedJSONIsByteForByteTheSerializedPlan() {
        let odd = PlannedFile(path: "dir/\u{e9}t\u{e9} \"quoted\"\\back\nline.png", size: 12, sha256: String(repeating: "ab", count: 32))
        let plans = [
            Plan(pipeline: "p", manifest: "m.yml", assemblies: []),
            Plan(pipeline: "site \u{1F600}", manifest: "dir/pipeline.yml", assemblies: [
                PlannedAssembly(job: "thumbs", instructions: PlanFixtures.resize(width: 200), files: [PlanFixtures.file("a.png"), odd]),
                PlannedAssembly(job: "empty", instructions: .object([:]), files: []),
                PlannedAssembly(job: "more", instructions: .object(["template_id": .string("t"), "fields": .object(["k": .array([])])]),
                                files: (0..<50).map { PlanFixtures.file("f\($0).png") }),
            ]),
        ]
        for plan in plans {
            for pieceSize in [1, 100, 1 << 20] {
                var pieces: [Data] = []
                plan.writeJSON(pieceSize: pieceSize) { pieces.append($0) }
                XCTAssertEqual(String(decoding: pieces.reduce(Data(), +), as: UTF8.self), plan.json.serialized(pretty: true) + "\n")
                if pieceSize == 1, !plan.assemblies.isEmpty { XCTAssertGreaterThan(pieces.count, 50, "written in pieces") }
            }
        }
    }

    func testJSONRoundTrip() throws {
        let plan = PlanFixtures.samplePlan()
        let text = plan.json.serialized(pretty: true)
        let decoded = try Plan.decode(Data(text.utf8), file: "plan.json")
        XCTAssertEqual(decoded, plan)
        XCTAssertEqual(decoded.json.serialized(pretty: true), text)
    }

    func testRoundTripOfAnEmptyPlan() throws {
        let plan = PlanFixtures.plan([])
        XCTAssertEqual(try Plan.decode(Data(plan.json.serialized().utf8), file: "plan.json"), plan)
    }

    /// A whole number written as `2.0` in a manifest must survive a save and reload, or
    /// `pipeline diff` against a saved plan reports a change that is not there.
    func testRoundTripKeepsWholeDoubles() throws {
        let instructions = JSONValue.object(["steps": .object(["thumb": .object([
            "robot": .string("/image/resize"), "width": .int(200), "zoom": .double(2.0),
        ])])])
        let plan = PlanFixtures.plan(PlanFixtures.assemblies("thumbs", instructions, [[PlanFixtures.file("a.png")]]))
        let decoded = try Plan.decode(Data(plan.json.serialized(pretty: true).utf8), file: "plan.json")
        XCTAssertTrue(PlanDiff(old: decoded, new: plan).isEmpty, "\(PlanDiff(old: decoded, new: plan).jobs.map(\.instructionChanges))")
    }

    func testMalformedJSONIsReportedAsSuch() {
        for text in ["", "{", "not json", "{\"version\": 1"] {
            XCTAssertThrowsError(try Plan.decode(Data(text.utf8), file: "plan.json"), text) { error in
                XCTAssertEqual((error as? DiagnosticsError)?.diagnostics, [Diagnostic(
                    id: "plan.invalid-json", message: "'plan.json' is not valid JSON", hint: "write plans with 'pipeline plan --out FILE'")])
            }
        }
    }
}
