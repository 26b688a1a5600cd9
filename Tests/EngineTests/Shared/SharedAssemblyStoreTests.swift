@testable import Engine
import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// Engines sharing Assemblies in Postgres: what one stores, another reads with its files named in
/// its own folder; a move made by one wakes the status requests held by another.
final class SharedAssemblyStoreTests: SharedStateTestCase {
    func testAnAssemblyOneEngineStoresIsReadByAnotherInItsOwnFolder() throws {
        let states = try engines(2)
        let (first, second) = (try folder(), try folder())
        let a = try SharedAssemblyStore(state: states[0], directory: first + "/assemblies", clock: SystemClock(), warn: { _ in })
        let b = try SharedAssemblyStore(state: states[1], directory: second + "/assemblies", clock: SystemClock(), warn: { _ in })
        let id = String(repeating: "a", count: 32)
        XCTAssertTrue(try a.insert(record(id, file: first + "/assemblies/\(id)/uploads/f1")))
        XCTAssertFalse(try b.insert(record(id, file: second + "/assemblies/\(id)/uploads/f1")), "the id is taken on every engine")
        let read = try XCTUnwrap(b.get(id))
        XCTAssertEqual(read.uploads.first?.path, second + "/assemblies/\(id)/uploads/f1", "named in the reading engine's folder")
        XCTAssertEqual(read.phase, .uploading)
        XCTAssertEqual(b.live.map(\.id), [id])
        XCTAssertNil(b.get(String(repeating: "b", count: 32)))
    }

    func testAStoredRecordNamingAFileOutsideTheFolderIsNotLoaded() throws {
        let states = try engines(1)
        let root = try folder()
        let warnings = Mutex<[String]>([])
        let store = try SharedAssemblyStore(state: states[0], directory: root + "/assemblies", clock: SystemClock(), warn: { line in warnings.withLock { $0.append(line) } })
        let id = String(repeating: "c", count: 32)
        XCTAssertTrue(try store.insert(record(id, file: "/etc/passwd")))
        XCTAssertNil(store.get(id), "a row is input, never truth: a file outside the folder is never served or read")
        XCTAssertTrue(warnings.withLock { $0 }.contains { $0.contains("outside the engine's data folder") }, "\(warnings.withLock { $0 })")
    }

    func testAMoveOnOneEngineWakesAStatusRequestHeldOnAnother() throws {
        let states = try engines(2)
        let (first, second) = (try folder(), try folder())
        let a = try SharedAssemblyStore(state: states[0], directory: first + "/assemblies", clock: SystemClock(), warn: { _ in })
        let b = try SharedAssemblyStore(state: states[1], directory: second + "/assemblies", clock: SystemClock(), warn: { _ in })
        var waits: [Duration] = []
        for round in 0..<10 {
            let id = String(format: "%032x", round + 1)
            XCTAssertTrue(try a.insert(record(id, file: first + "/assemblies/\(id)/uploads/f1")))
            let answered = Mutex<ContinuousClock.Instant?>(nil)
            let done = WakeSignal()
            DedicatedThread.start("held") {
                _ = b.waitForChange(of: id, from: .uploading, until: .now + .seconds(10), clientGone: { false }, whenAnswered: { $0() })
                answered.withLock { $0 = .now }
                done.signal()
            }
            XCTAssertTrue(eventuallyBlocking { b.heldCount == 1 }, "the request is held")
            let moved = ContinuousClock.now
            a.update(id) { record in _ = record.apply(.uploadsComplete) }
            XCTAssertTrue(done.wait(atMost: .seconds(5)))
            waits.append(try XCTUnwrap(answered.withLock { $0 }) - moved)
            XCTAssertEqual(b.get(id)?.phase, .executing)
        }
        let sorted = waits.sorted()
        print("shared held status wake-ups: p50 \(sorted[sorted.count / 2]), max \(sorted.last ?? .zero)")
        XCTAssertLessThan(sorted[sorted.count / 2], .milliseconds(100), "woken by NOTIFY, not by the 250 ms look again: \(sorted)")
    }
}
