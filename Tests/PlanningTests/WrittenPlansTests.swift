import Basics
import Foundation
@testable import Planning
import TestSupport
import XCTest

/// A plan file is trusted to hold a plan only while `stat` describes it as it was written, for
/// that very plan and that build of the tool; anything else renders and writes as before.
final class WrittenPlansTests: XCTestCase {
    private let plan = PlanFixtures.samplePlan()

    /// The plan written to `name` in `folder` as `pipeline plan --out` writes it, and remembered.
    private func written(_ plan: Plan, to name: String, in folder: TemporaryDirectory, version: String = "1.0.0") throws -> (WrittenPlans, String) {
        let memory = WrittenPlans(stateFile: folder.path + "/.pipeline/written-plans.json", version: version)
        let path = folder.path + "/" + name
        let info = try XCTUnwrap(try AtomicFile.update(path, durable: false) { emit in plan.writeJSON(emit) })
        memory.remember(plan, at: path, info: info)
        return (memory, path)
    }

    func testAPlanIsHeldByTheFileItWasWrittenToUntilThatFileChanges() throws {
        let folder = try TemporaryDirectory()
        let (memory, path) = try written(plan, to: "plan.json", in: folder)
        XCTAssertTrue(memory.hold(plan, at: path))
        // Relative to the working folder, the same file.
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        XCTAssertTrue(memory.hold(plan, at: "plan.json"))
        try FileManager.default.createDirectory(atPath: folder.path + "/sub", withIntermediateDirectories: false)
        XCTAssertTrue(memory.hold(plan, at: "./sub/../plan.json"))

        // Rewritten in place with the same size, its modification time put back: the change time tells.
        var before = stat()
        XCTAssertEqual(stat(path, &before), 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 2] = UInt8(ascii: " ")
        let descriptor = open(path, O_WRONLY)
        XCTAssertEqual(bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }, bytes.count)
        var times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(futimens(descriptor, &times), 0)
        close(descriptor)
        XCTAssertFalse(memory.hold(plan, at: path))
    }

    func testAnotherPlanAnotherBuildOrAnotherFileIsNotHeld() throws {
        let folder = try TemporaryDirectory()
        let (memory, path) = try written(plan, to: "plan.json", in: folder)
        var changed = plan
        changed.assemblies[0] = PlannedAssembly(job: changed.assemblies[0].job, instructions: PlanFixtures.resize(width: 201), files: changed.assemblies[0].files)
        XCTAssertFalse(memory.hold(changed, at: path), "another plan")
        var renamed = plan
        renamed.manifest = "other.yml"
        XCTAssertFalse(memory.hold(renamed, at: path), "another manifest")
        XCTAssertFalse(WrittenPlans(stateFile: memory.stateFile, version: "1.0.1").hold(plan, at: path), "another version of the tool")
        XCTAssertFalse(memory.hold(plan, at: folder.path + "/other.json"), "a file never written")

        // The same bytes in a new file (a checkout, a copy back): not the file that was written.
        let copy = folder.path + "/copy.json"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        XCTAssertEqual(rename(copy, path), 0)
        XCTAssertFalse(memory.hold(plan, at: path))
    }

    func testATouchedRemovedOrLinkedFileIsNotHeld() throws {
        let folder = try TemporaryDirectory()
        let (memory, path) = try written(plan, to: "plan.json", in: folder)
        XCTAssertEqual(utimes(path, nil), 0)
        XCTAssertFalse(memory.hold(plan, at: path), "touched")

        let (again, second) = try written(plan, to: "second.json", in: folder)
        XCTAssertTrue(again.hold(plan, at: second))
        let link = folder.path + "/link.json"
        XCTAssertEqual(symlink(second, link), 0)
        XCTAssertFalse(again.hold(plan, at: link), "a link is replaced by a written plan, never trusted")
        XCTAssertEqual(unlink(second), 0)
        XCTAssertFalse(again.hold(plan, at: second), "removed")
    }

    func testAStateFileThatCannotBeReadTrustsNothingAndIsWrittenAnew() throws {
        let folder = try TemporaryDirectory()
        let (memory, path) = try written(plan, to: "plan.json", in: folder)
        for broken in ["", "{", #"{"version": 2, "files": {}}"#, #"{"version": 1, "files": {"\#(path)": {"plan": 1}}}"#] {
            try Data(broken.utf8).write(to: URL(fileURLWithPath: memory.stateFile))
            XCTAssertFalse(memory.hold(plan, at: path), broken)
        }
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        memory.remember(plan, at: path, info: info)
        XCTAssertTrue(memory.hold(plan, at: path))
    }

    func testAStateFileThatIsALinkIsNeitherFollowedNorReplaced() throws {
        let folder = try TemporaryDirectory()
        let (memory, path) = try written(plan, to: "plan.json", in: folder)
        // A checkout plants the state as a link to a copy that would vouch for the plan file.
        let elsewhere = folder.path + "/elsewhere.json"
        try FileManager.default.moveItem(atPath: memory.stateFile, toPath: elsewhere)
        XCTAssertEqual(symlink(elsewhere, memory.stateFile), 0)
        XCTAssertFalse(memory.hold(plan, at: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: elsewhere))
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        memory.remember(plan, at: path, info: info)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: elsewhere)), before)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: memory.stateFile), elsewhere)
        // A pipe there is not read (a read would wait for a writer).
        XCTAssertEqual(unlink(memory.stateFile), 0)
        XCTAssertEqual(mkfifo(memory.stateFile, 0o644), 0)
        XCTAssertFalse(memory.hold(plan, at: path))
    }

    func testItKeepsAFewFilesAndTheNewestAlways() throws {
        let folder = try TemporaryDirectory()
        var memory: WrittenPlans?
        var paths: [String] = []
        for index in 0...WrittenPlans.mostFiles {
            let (made, path) = try written(plan, to: "plan\(index).json", in: folder)
            memory = made
            paths.append(path)
        }
        let kept = try XCTUnwrap(memory)
        XCTAssertTrue(kept.hold(plan, at: try XCTUnwrap(paths.last)))
        XCTAssertLessThanOrEqual(paths.filter { kept.hold(plan, at: $0) }.count, WrittenPlans.mostFiles)
    }
}
