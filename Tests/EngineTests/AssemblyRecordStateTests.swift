@testable import Engine
import Basics
import Foundation
import Wire
import XCTest

/// An Assembly's file is written without Codable's encoder; it must hold what that encoder wrote,
/// so records from earlier engines and this one read alike.
final class AssemblyRecordStateTests: XCTestCase {
    private func file(_ id: String, name: String, exportURL: String? = nil) -> AssemblyFile {
        AssemblyFile(
            id: id, name: name, field: "file_1", originalID: id, originalName: name, path: "/data/a b/\(id)", size: 181_313,
            mime: "image/png", meta: ["width": .int(256), "ratio": .double(1.5), "tags": .array([.string("x"), .null]), "ok": .bool(true)],
            isTusFile: true, exportURL: exportURL)
    }

    private func record(finished: Bool) -> AssemblyRecord {
        var record = AssemblyRecord(
            id: "0123456789abcdef0123456789abcdef", origin: "http://127.0.0.1:8787",
            params: #"{"auth":{"key":"k"},"steps":{"thumb":{"robot":"/image/resize","width":64}}}"#,
            steps: .object(["thumb": .object(["robot": .string("/image/resize"), "width": .int(64), "scale": .double(0.25)])]),
            fields: ["kind": .string("thumb \"quoted\" / slashed — ünïcode \u{1}")], notifyURL: finished ? "https://hooks.example.com/t" : nil,
            expectedTusUploads: 2, uploads: [file("aa", name: "a.png")], created: Date(timeIntervalSince1970: 1_764_645_132.75),
            clientAgent: finished ? "pipeline/0.1.0" : nil)
        record.tusLinks = [
            .init(uploadID: "u1", filename: "a.png", fieldname: "file_1", size: 181_313, offset: 181_313, finished: true),
            .init(uploadID: "u2", filename: "b.png", fieldname: "file_2", size: nil, offset: 0, finished: false),
        ]
        if finished {
            _ = record.apply(.uploadsComplete, at: Date(timeIntervalSince1970: 1_764_645_133))
            _ = record.apply(
                .stepsFinished(results: ["thumb": [file("bb", name: "a.png", exportURL: "file:///out/a.png")]],
                               ignored: [.init(step: "thumb", robot: nil, error: APIErrorCode(received: "X"), message: nil)],
                               warnings: [.init(level: "warning", msg: "VipsJpeg: Corrupt JPEG data", step: "thumb", originalID: "aa")]),
                at: Date(timeIntervalSince1970: 1_764_645_134.5))
        }
        return record
    }

    func testTheRecordsFileHoldsWhatCodablesEncoderWrote() throws {
        for finished in [false, true] {
            let record = record(finished: finished)
            let codable = try StateCoding.encoder.encode(record)
            let written = try record.stateJSON().compactData
            XCTAssertEqual(try JSONValue.parse(written), try JSONValue.parse(codable), "finished: \(finished)")
            // Read back, it is the same record: encoded again by Codable, the same bytes.
            let decoded = try StateCoding.decode(AssemblyRecord.self, from: written)
            XCTAssertEqual(try StateCoding.encoder.encode(decoded), codable, "finished: \(finished)")
        }
    }

    func testTimestampsAreWholeSecondsInUTCAsTheDecoderReadsThem() throws {
        let date = Date(timeIntervalSince1970: 1_764_645_132.999)
        XCTAssertEqual(AuthTime.format(date), "2025-12-02T03:12:12Z")
        let encoded = String(decoding: try StateCoding.encoder.encode(["at": date]), as: UTF8.self)
        XCTAssertEqual(encoded, #"{"at":"2025-12-02T03:12:12Z"}"#)
    }
}
