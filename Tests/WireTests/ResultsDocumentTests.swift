import Basics
import Foundation
import Wire
import XCTest

/// A results file's Assembly entries read leniently, as earlier versions read them, and written
/// with the members the schema requires always.
final class ResultsDocumentTests: XCTestCase {
    private func entry(_ text: String) throws -> ResultsDocument.Assembly? {
        ResultsDocument.Assembly.read(try JSONValue.parse(Data(text.utf8)))
    }

    func testAnEntryNeedsItsJobPlanAndStatus() throws {
        XCTAssertNotNil(try entry(#"{"job": "j", "plan_id": "p", "status": "ASSEMBLY_COMPLETED"}"#))
        XCTAssertNil(try entry(#"{"job": "j", "plan_id": "p"}"#))
        XCTAssertNil(try entry(#"{"job": 1, "plan_id": "p", "status": "S"}"#))
        XCTAssertNil(try entry(#"[]"#))
    }

    func testOddMembersAreAbsentNotFatal() throws {
        let read = try XCTUnwrap(try entry(#"""
            {"job": "j", "plan_id": "p", "status": "S", "assembly_id": 7, "attempt": {"message": "no status"},
             "files": [{"path": "a", "size": 1, "sha256": "x", "steps": {"t": "d", "u": 2}}, {"path": "b"}, 3],
             "results": {"t": [{"name": "r", "size": 2.0, "meta": null}, 5], "u": "none"},
             "left_out": [{"step": "t", "error": "E"}, "x"], "warnings": {"no": "list"}}
            """#))
        XCTAssertNil(read.assemblyID)
        XCTAssertNil(read.attempt, "an attempt needs its status")
        XCTAssertEqual(read.files.map(\.path), ["a"], "a file without size and digest is left out")
        XCTAssertEqual(read.files.first?.steps, ["t": "d"])
        XCTAssertEqual(read.results["t"]?.count, 2, "an element that is no object is a result with nothing known")
        XCTAssertEqual(read.results["t"]?.first?.size, 2)
        XCTAssertEqual(read.results["t"]?.first?.meta, .null, "meta as written, null included")
        XCTAssertNil(read.results["t"]?.last?.name)
        XCTAssertEqual(read.results["u"]?.count, 0, "results that are no list are none")
        XCTAssertEqual(read.leftOut.map(\.error), ["E", nil])
        XCTAssertTrue(read.warnings.isEmpty)
    }

    func testTheHeaderNeedsThePipelinesName() {
        XCTAssertEqual(ResultsDocument.Header.read(["pipeline": .string("p"), "shard": .int(1)])?.pipeline, "p")
        XCTAssertNil(ResultsDocument.Header.read(["pipeline": .string("p")])?.shard)
        XCTAssertNil(ResultsDocument.Header.read(["manifest": .string("m")]))
    }

    func testWhatIsWrittenReadsBackAndRequiredMembersAreAlwaysThere() throws {
        let written = ResultsDocument.Assembly(
            job: "j", planID: "p", status: "S", assemblyID: nil, assemblyURL: "u", message: nil,
            files: [ResultsDocument.File(path: "a", size: 1, sha256: "x", steps: ["t": "d"], smartCDNURL: nil)],
            results: ["t": [ResultsDocument.Result(source: nil, name: "r", url: nil, size: nil, md5hash: nil, mime: "image/png", meta: nil, localPath: nil, expires: nil)]],
            leftOut: [ResultsDocument.LeftOut(source: nil, step: "t", error: nil, message: "m")], warnings: [],
            attempt: ResultsDocument.Attempt(status: "INTERRUPTED", message: nil, assemblyID: nil, endpoint: "local"))
        let json = try JSONValueEncoder.encode(written)
        XCTAssertEqual(json.serialized(), #"{"assembly_url":"u","attempt":{"endpoint":"local","status":"INTERRUPTED"},"#
            + #""files":[{"path":"a","sha256":"x","size":1,"steps":{"t":"d"}}],"job":"j","#
            + #""left_out":[{"error":null,"message":"m","source":null,"step":"t"}],"plan_id":"p","#
            + #""results":{"t":[{"meta":null,"mime":"image/png","name":"r","size":null,"source":null}]},"status":"S"}"#)
        let read = try XCTUnwrap(ResultsDocument.Assembly.read(json))
        XCTAssertEqual(read.assemblyURL, "u")
        XCTAssertEqual(read.files.first?.steps, ["t": "d"])
        XCTAssertEqual(read.results["t"]?.first?.mime, "image/png")
        XCTAssertEqual(read.attempt?.endpoint, "local")
        let header = try JSONValueEncoder.encode(ResultsDocument.Header(pipeline: "p", manifest: nil, shard: "1/2", endpoint: nil))
        XCTAssertEqual(header.serialized(), #"{"pipeline":"p","shard":"1/2","version":1}"#)
        XCTAssertEqual(ResultsDocument.Header.read(header.objectValue ?? [:])?.shard, "1/2")
    }
}
