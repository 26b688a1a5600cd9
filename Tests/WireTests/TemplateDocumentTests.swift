import Basics
import Wire
import XCTest

/// The Templates API's document, as the engine writes it and the clients read it.
final class TemplateDocumentTests: XCTestCase {
    func testAnAnswerReadsBackAsWritten() throws {
        let written = TemplateDocument(
            ok: TemplateStatusCode.created, id: "abc123", name: "site-thumbs", content: .object(["steps": .object([:])]),
            requireSignatureAuth: true, created: "2026-12-03T20:00:00Z", modified: "2026-12-03T21:00:00Z")
        let read = TemplateDocument(try JSONValue.parse(Data(written.json.serialized().utf8)))
        XCTAssertEqual(read, written)
        XCTAssertEqual(written.json["require_signature_auth"], .int(1), "the flag as the service sends it")
    }

    func testTheFlagIsReadInEveryFormTheServiceAndSDKsUse() throws {
        for (text, expected) in [("1", true), ("true", true), ("\"1\"", true), ("\"true\"", true), ("0", false), ("false", false), ("null", false), ("[1]", false)] {
            let document = TemplateDocument(try JSONValue.parse(Data("{\"id\":\"a\",\"require_signature_auth\":\(text)}".utf8)))
            XCTAssertEqual(document.requireSignatureAuth, expected, text)
        }
    }

    func testAListingKeepsItsObjectsAndCount() throws {
        let page = TemplateListDocument(try JSONValue.parse(Data(#"{"items":[{"id":"a","name":"one-name"},7,"x",{"id":"b"}],"count":12}"#.utf8)))
        XCTAssertEqual(page.items.map(\.id), ["a", "b"], "an item that is not an object is left out")
        XCTAssertEqual(page.count, 12)
        XCTAssertNil(TemplateListDocument(try JSONValue.parse(Data(#"{"items":[],"count":"many"}"#.utf8))).count, "a count of another type is none")
        XCTAssertEqual(TemplateListDocument(page.json), page)
    }
}
