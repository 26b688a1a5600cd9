import Basics
import Foundation
import Wire
import XCTest

/// The status document reads what servers send, however odd one field is, and reads back what
/// the engine writes.
final class AssemblyStatusDocumentTests: XCTestCase {
    func testOddFieldsAreAbsentAndTheRestIsRead() throws {
        let text = """
            {"ok": "ASSEMBLY_COMPLETED", "bytes_expected": "12", "bytes_received": 12, "http_code": 200,
             "assembly_id": "0123456789abcdef0123456789abcdef", "tus_uploads": [{"fieldname": "file_0", "finished": true, "size": null}, 7],
             "uploads": [{"id": "u1", "name": "a.jpg", "field": "file_0", "size": -1}],
             "results": {"thumb": [{"id": "r1", "original_id": ["u1", "u2"], "size": null, "md5hash": 5, "meta": {"width": 3}}, "junk"],
                         "odd": 4},
             "warnings": [{"level": "notice", "msg": "slow"}], "info": {"retryIn": "soon"}, "fields": [1]}
            """
        let document = try XCTUnwrap(AssemblyStatusDocument.decode(Data(text.utf8)))
        XCTAssertEqual(document.ok, .completed)
        XCTAssertNil(document.bytesExpected, "a string byte count is no count")
        XCTAssertEqual(document.bytesReceived, 12)
        XCTAssertEqual(document.tusUploads.map(\.fieldname), ["file_0"], "an element that is no upload is dropped")
        XCTAssertNil(document.uploads.first?.size, "a negative size is unknown")
        let result = try XCTUnwrap(document.results["thumb"]?.first)
        XCTAssertEqual(document.results["thumb"]?.count, 1)
        XCTAssertEqual(result.originalIDs, ["u1", "u2"])
        XCTAssertNil(result.md5hash)
        XCTAssertEqual(result.meta?["width"], .int(3))
        XCTAssertEqual(document.results["odd"], nil, "a step whose results are no list is dropped")
        XCTAssertEqual(document.warnings.first?.msg, "slow")
        XCTAssertNil(document.info?.retryIn)
        XCTAssertEqual(document.fields, [:])
    }

    func testOnlyAJSONObjectIsAStatus() {
        for text in ["", "[]", "\"ok\"", "<html>", "{", "  \n"] {
            XCTAssertNil(AssemblyStatusDocument.decode(Data(text.utf8)), text)
        }
        XCTAssertNotNil(AssemblyStatusDocument.decode(Data(" {}".utf8)))
    }

    func testWhatIsWrittenReadsBackTheSame() throws {
        var document = AssemblyStatusDocument()
        document.ok = .uploading
        document.assemblyURL = "http://127.0.0.1:1/assemblies/x"
        document.tusUploads = [.init(filename: "a b#.jpg", fieldname: "file_0", size: nil, offset: 0, finished: false, uploadURL: "http://h/files/1")]
        var file = AssemblyStatusDocument.File(id: "r1", name: "a.jpg", size: 3, mime: "image/jpeg")
        file.originalIDs = ["u1"]
        file.meta = .object(["width": .int(3)])
        document.results = ["thumb": [file]]
        document.ignoredErrors = [.init(step: "thumb", robot: "/image/resize", error: .imageResizeError, message: "m", originalID: "u2")]
        document.info = .init(retryIn: 1.5)
        let text = document.jsonText()
        XCTAssertTrue(text.contains("\"assembly_url\":\"http://127.0.0.1:1/assemblies/x\""), "slashes as they are: \(text)")
        XCTAssertTrue(text.contains("\"size\":null"), "an upload of deferred length says so: \(text)")
        XCTAssertTrue(text.contains("\"original_id\":\"u1\""), "one original_id, as the engine always wrote it: \(text)")
        XCTAssertEqual(AssemblyStatusDocument.decode(Data(text.utf8)), document)
    }
}
