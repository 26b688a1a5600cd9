@testable import Engine
import Foundation
import TestSupport
import XCTest

/// The signatures the engine took outlive a restart: a ledger it cannot read stops the start
/// (never read as empty and written over), and a torn or foreign line costs only itself.
final class SignatureLedgerTests: XCTestCase {
    func testALedgerThatCannotBeReadStopsTheStartAndIsLeftAsItWas() throws {
        let directory = try TemporaryDirectory(prefix: "ledger")
        defer { directory.remove() }
        _ = try directory.write("signatures.log/inside", "kept")
        XCTAssertThrowsError(try SignatureLedger(path: directory.path + "/signatures.log")) { error in
            XCTAssertTrue("\(error)".contains("signatures.log"), "the error names the file: \(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/signatures.log/inside", encoding: .utf8), "kept")
    }

    func testATornLastLineIsDroppedAndAnyOtherForeignLineStopsTheStart() throws {
        let directory = try TemporaryDirectory(prefix: "ledger")
        defer { directory.remove() }
        let later = Int(Date().timeIntervalSince1970) + 3600, earlier = Int(Date().timeIntervalSince1970) - 60
        let first = String(repeating: "a", count: 64), second = String(repeating: "b", count: 64), old = String(repeating: "c", count: 64)
        let path = try directory.write("signatures.log", "\(later) \(first)\n\(earlier) \(old)\n\(later) \(second)\n\(later) tor")
        let ledger = try SignatureLedger(path: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "\(later) \(first)\n\(later) \(second)\n", "the expired and the torn line go")
        _ = ledger
        for damaged in ["not json\n", "\(later) \(first)\nX\(later) \(second)\n", "\(later) \(first)\ngarbage\n"] {
            let path = try directory.write("damaged.log", damaged)
            XCTAssertThrowsError(try SignatureLedger(path: path), damaged) { error in
                XCTAssertTrue("\(error)".contains("damaged.log") && "\(error)".contains("not one of the signatures"), "\(error)")
            }
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), damaged, "left as it was")
        }
    }

    func testExpiredSignaturesGoWhenTheLedgerHasDoubledFromMemoryAndFile() throws {
        let directory = try TemporaryDirectory(prefix: "ledger-compaction")
        defer { directory.remove() }
        let path = directory.path + "/signatures.log"
        let ledger = try SignatureLedger(path: path)
        let start = Date()
        let count = SignatureLedger.compactionFloor
        for index in 0..<count { XCTAssertTrue(ledger.insert("old-\(index)", expires: start.addingTimeInterval(60), now: start)) }
        XCTAssertEqual(ledger.count, count)
        // Two minutes on, the old ones have expired: the next insert drops them.
        let later = start.addingTimeInterval(120)
        XCTAssertTrue(ledger.insert("new", expires: later.addingTimeInterval(60), now: later))
        XCTAssertEqual(ledger.count, 1)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "the file holds what can still be replayed")
        XCTAssertFalse(ledger.insert("new", expires: later.addingTimeInterval(60), now: later), "still refused as a reuse")
        XCTAssertFalse(try SignatureLedger(path: path, now: later).insert("new", expires: later.addingTimeInterval(60), now: later), "and after a restart")
    }
}
