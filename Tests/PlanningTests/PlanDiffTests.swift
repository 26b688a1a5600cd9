import Basics
import Planning
import TestSupport
import XCTest

final class PlanDiffTests: XCTestCase {
    private typealias F = PlanFixtures

    private func counts(_ diff: PlanDiff) -> [Int] {
        [diff.createCount, diff.changeCount, diff.removeCount, diff.unchangedCount]
    }

    func testIdenticalPlans() {
        let plan = F.samplePlan()
        let diff = PlanDiff(old: plan, new: plan)
        XCTAssertTrue(diff.isEmpty)
        XCTAssertEqual(counts(diff), [0, 0, 0, 3])
        XCTAssertEqual(diff.jobs.map(\.job), ["thumbs", "previews"])
        XCTAssertEqual(diff.jobs.map(\.presence), [.both, .both])
        XCTAssertEqual(diff.jobs.map(\.unchanged), [2, 1])
        XCTAssertTrue(diff.jobs.allSatisfy { $0.instructionChanges.isEmpty && $0.created.isEmpty && $0.changed.isEmpty && $0.removed.isEmpty })
    }

    func testInstructionChangePairsAssembliesWithTheSameFiles() {
        let groups = [[F.file("a.png")], [F.file("b.png")], [F.file("c.png")]]
        let old = F.plan(F.assemblies("thumbs", F.resize(width: 200), groups))
        let new = F.plan(F.assemblies("thumbs", F.resize(width: 320), groups))
        let diff = PlanDiff(old: old, new: new)
        XCTAssertFalse(diff.isEmpty)
        XCTAssertEqual(counts(diff), [0, 3, 0, 0])
        let job = diff.jobs[0]
        XCTAssertEqual(job.instructionChanges, [ValueChange(path: ["steps", "thumb", "width"], old: .int(200), new: .int(320))])
        XCTAssertEqual(job.changed.map { $0.old.files.map(\.path) }, [["a.png"], ["b.png"], ["c.png"]])
        XCTAssertEqual(job.changed.map { $0.new.files.map(\.path) }, [["a.png"], ["b.png"], ["c.png"]])
        XCTAssertEqual(job.changed.map(\.old.id), old.assemblies.map(\.id))
        XCTAssertEqual(job.changed.map(\.new.id), new.assemblies.map(\.id))
        for change in job.changed {
            XCTAssertEqual(change.addedFiles, [])
            XCTAssertEqual(change.removedFiles, [])
            XCTAssertEqual(change.changedFiles, [])
        }
    }

    func testNewFileInABatch() {
        let old = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png"), F.file("b.png")], [F.file("c.png")]]))
        let new = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png"), F.file("b.png")], [F.file("b2.png"), F.file("c.png")]]))
        let diff = PlanDiff(old: old, new: new)
        XCTAssertEqual(counts(diff), [0, 1, 0, 1])
        let change = diff.jobs[0].changed[0]
        XCTAssertEqual(change.old.id, old.assemblies[1].id)
        XCTAssertEqual(change.new.id, new.assemblies[1].id)
        XCTAssertEqual(change.addedFiles, [F.file("b2.png")])
        XCTAssertEqual(change.removedFiles, [])
        XCTAssertEqual(change.changedFiles, [])
        XCTAssertEqual(diff.jobs[0].instructionChanges, [])
        XCTAssertFalse(diff.isEmpty)
    }

    func testChangedFileContent() {
        let old = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png"), F.file("b.png")]]))
        let new = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png"), F.file("b.png", "v2", size: 12)]]))
        let diff = PlanDiff(old: old, new: new)
        XCTAssertEqual(counts(diff), [0, 1, 0, 0])
        let change = diff.jobs[0].changed[0]
        XCTAssertEqual(change.changedFiles, [F.file("b.png", "v2", size: 12)])
        XCTAssertEqual(change.addedFiles, [])
        XCTAssertEqual(change.removedFiles, [])
    }

    func testRemovedFileFromABatch() {
        let old = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png"), F.file("b.png"), F.file("c.png")]]))
        let new = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png"), F.file("c.png")]]))
        let change = PlanDiff(old: old, new: new).jobs[0].changed
        XCTAssertEqual(change.map(\.removedFiles), [[F.file("b.png")]])
        XCTAssertEqual(change.map(\.addedFiles), [[]])
    }

    func testAssembliesWithoutSharedFilesAreCreatedAndRemoved() {
        let old = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png")], [F.file("b.png")]]))
        let new = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[F.file("b.png")], [F.file("c.png")]]))
        let diff = PlanDiff(old: old, new: new)
        XCTAssertEqual(counts(diff), [1, 0, 1, 1])
        XCTAssertEqual(diff.jobs[0].created.map { $0.files.map(\.path) }, [["c.png"]])
        XCTAssertEqual(diff.jobs[0].removed.map { $0.files.map(\.path) }, [["a.png"]])
    }

    func testAddedAndRemovedJobs() {
        let thumbs = F.assemblies("thumbs", F.resize(width: 200), [[F.file("a.png")]])
        let videos = F.assemblies("videos", .object(["template_id": .string("0123abcd")]), [[F.file("v.mp4")], [F.file("w.mp4")]])
        let previews = F.assemblies("previews", F.resize(width: 640), [[F.file("a.png")]])
        let diff = PlanDiff(old: F.plan(thumbs + videos), new: F.plan(previews + thumbs))
        XCTAssertEqual(diff.jobs.map(\.job), ["previews", "thumbs", "videos"])
        XCTAssertEqual(diff.jobs.map(\.presence), [.added, .both, .removed])
        XCTAssertEqual(diff.jobs.map(\.created.count), [1, 0, 0])
        XCTAssertEqual(diff.jobs.map(\.removed.count), [0, 0, 2])
        XCTAssertEqual(diff.jobs.map(\.unchanged), [0, 1, 0])
        XCTAssertTrue(diff.jobs.allSatisfy { $0.instructionChanges.isEmpty })
        XCTAssertEqual(counts(diff), [1, 0, 2, 1])
        XCTAssertFalse(diff.isEmpty)
    }

    func testATwinWhoseNameDiffersOnlyByNormalizationIsAnAddedFile() throws {
        let composed = F.file("img/Cr\u{E8}me.png", "A"), decomposed = F.file("img/Cre\u{300}me.png", "B")
        let old = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[composed]]))
        let new = F.plan(F.assemblies("thumbs", F.resize(width: 200), [[decomposed, composed]]))
        let change = try XCTUnwrap(PlanDiff(old: old, new: new).jobs.first?.changed.first)
        XCTAssertEqual(change.addedFiles.map { Array($0.path.utf8) }, [Array(decomposed.path.utf8)])
        XCTAssertEqual(change.removedFiles, [])
        XCTAssertEqual(change.changedFiles, [], "the composed file is as it was")
        let gone = try XCTUnwrap(PlanDiff(old: new, new: old).jobs.first?.changed.first)
        XCTAssertEqual(gone.removedFiles.map { Array($0.path.utf8) }, [Array(decomposed.path.utf8)])
        XCTAssertEqual(gone.addedFiles, [])
    }

    func testValueChanges() {
        let old = parseJSON(#"{"steps": {"a": {"width": 1, "gone": true}}, "fields": {"k": "x"}}"#)
        let new = parseJSON(#"{"steps": {"a": {"width": 2, "added": [1]}}, "notify_url": "https://h.example"}"#)
        XCTAssertEqual(ValueChange.changes(from: old, to: new), [
            ValueChange(path: ["fields"], old: .object(["k": .string("x")]), new: nil),
            ValueChange(path: ["notify_url"], old: nil, new: .string("https://h.example")),
            ValueChange(path: ["steps", "a", "added"], old: nil, new: .array([.int(1)])),
            ValueChange(path: ["steps", "a", "gone"], old: .bool(true), new: nil),
            ValueChange(path: ["steps", "a", "width"], old: .int(1), new: .int(2)),
        ])
        XCTAssertEqual(ValueChange.changes(from: old, to: old), [])
    }
}
