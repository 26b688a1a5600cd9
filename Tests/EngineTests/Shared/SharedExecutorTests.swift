@testable import Engine
import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// The executor of an engine sharing its state: an Assembly whose last file arrives here runs
/// here, with the copies this engine holds, and those copies stay while it runs, however often
/// the engine is told the Assembly is ready.
final class SharedExecutorTests: SharedStateTestCase {
    /// Shared files that keep nothing, and note which Assemblies' local copies were dropped.
    private final class NotedFiles: SharedFiles {
        let dropped = Mutex<[String]>([])
        func fetch(_ files: [AssemblyFile]) throws(RobotError) {}
        func publish(_ files: [AssemblyFile]) throws(RobotError) {}
        func copy(_ file: AssemblyFile, to path: String) throws(RobotError) {}
        func dropLocalCopies(assembly id: String, inputs: [AssemblyFile]) { dropped.withLock { $0.append(id) } }
    }

    func testTheCopiesOfAnAssemblyRunningHereStayWhenItIsReadyAgain() throws {
        let states = try engines(1)
        let root = try folder()
        let store = try SharedAssemblyStore(state: states[0], directory: root + "/assemblies", clock: SystemClock(), warn: { _ in })
        let files = NotedFiles()
        let queue = SharedRunQueue(state: states[0], lease: .seconds(60), warn: { _ in })
        let executor = AssemblyExecutor(store: store, resultsDirectory: root + "/results", queue: queue, files: files)
        defer { executor.stop(waitingAtMost: .seconds(5)) }
        let id = String(repeating: "d", count: 32)
        // A sparse GiB to hash: the run takes a while.
        let path = root + "/assemblies/\(id)/uploads/big"
        try FileManager.default.createDirectory(atPath: root + "/assemblies/\(id)/uploads", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertEqual(truncate(path, 1 << 30), 0)
        var record = record(id, file: path, phase: true)
        record.uploads[0].size = 1 << 30
        record.steps = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])
        XCTAssertTrue(try store.insert(record))
        executor.execute(id)
        XCTAssertEqual(executor.runningHere, [id], "the engine its file arrived at runs it")
        executor.execute(id)
        XCTAssertEqual(files.dropped.withLock { $0 }, [], "told again while it runs here, its copies stay")
        XCTAssertTrue(eventuallyBlocking(within: .seconds(60)) { store.get(id)?.phase == .completed }, "\(String(describing: store.get(id)?.message))")
        XCTAssertTrue(eventuallyBlocking { files.dropped.withLock { $0 } == [id] }, "dropped once its run ended: \(files.dropped.withLock { $0 })")
    }
}
