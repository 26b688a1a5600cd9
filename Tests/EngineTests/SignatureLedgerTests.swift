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

    func testEveryReadableLineIsKeptWhateverTheOthersHold() throws {
        let directory = try TemporaryDirectory(prefix: "ledger")
        defer { directory.remove() }
        let later = Int(Date().timeIntervalSince1970) + 3600
        let first = String(repeating: "a", count: 64), second = String(repeating: "b", count: 64)
        let bytes = Data("\(later) \(first)\n".utf8) + Data([0xFF, 0xFE, 0x0A]) + Data("\(later) \(second)\n\(later) tor".utf8)
        let path = try directory.write("signatures.log", data: bytes)
        let ledger = try SignatureLedger(path: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "\(later) \(first)\n\(later) \(second)\n", "rewritten with the lines that read")
        _ = ledger
    }
}
