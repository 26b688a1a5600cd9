@testable import Engine
import Basics
import Foundation
import XCTest

/// An upload's record is written without Codable's encoder; it must hold what that encoder wrote,
/// so records from earlier engines and this one read alike.
final class TusUploadRecordStateTests: XCTestCase {
    func testTheRecordsFileHoldsWhatCodablesEncoderWrote() throws {
        let created = Date(timeIntervalSince1970: 1_764_645_132.75)
        let records = [
            TusUploadRecord(
                id: "0123456789abcdef0123456789abcdef", length: 181_313, offset: 65_536,
                metadata: ["filename": "a \"b\" / c — ünïcode.png", "assembly_url": "http://127.0.0.1:8787/assemblies/x", "empty": ""],
                created: created, expires: created.addingTimeInterval(86_400.5)),
            // A deferred length and no metadata.
            TusUploadRecord(id: "fedcba9876543210fedcba9876543210", length: nil, offset: 0, metadata: [:], created: created, expires: created),
        ]
        for record in records {
            let codable = try StateCoding.encoder.encode(record)
            let written = record.stateJSON().compactData
            XCTAssertEqual(try JSONValue.parse(written), try JSONValue.parse(codable), record.id)
            // Read back, it is the same record: encoded again by Codable, the same bytes.
            let decoded = try StateCoding.decode(TusUploadRecord.self, from: written)
            XCTAssertEqual(try StateCoding.encoder.encode(decoded), codable, record.id)
        }
    }
}
