import Basics
import Foundation
import TestSupport
import XCTest

/// A JSON object read a member at a time gives the same values as the whole-file parser, over
/// buffer boundaries, and refuses what the parser refuses.
final class JSONObjectStreamTests: XCTestCase {
    private func read(_ text: String, maximumPiece: Int = 1 << 20) throws -> (elements: [JSONValue], members: [String: JSONValue]) {
        let directory = try TemporaryDirectory(prefix: "stream")
        defer { directory.remove() }
        let path = try directory.write("doc.json", text)
        let stream = try XCTUnwrap(JSONObjectStream(path: path, maximumPiece: maximumPiece))
        var elements: [JSONValue] = []
        var members: [String: JSONValue] = [:]
        try stream.read(streaming: "items", element: { elements.append($0) }, member: { members[$0] = $1 })
        return (elements, members)
    }

    func testElementsAndMembersAreTheParsersValues() throws {
        let text = #"""
            {"a": 1, "items": [{"s": "x]}\"y"}, [1, [2]], "str,]", -1.5e3, true, null, {}], "b": {"c": [false]}, "d": "\u00e9"}
            """#
        let whole = try JSONValue.parse(Data(text.utf8))
        let streamed = try read(text)
        XCTAssertEqual(streamed.elements, whole["items"]?.arrayValue)
        XCTAssertEqual(streamed.members, ["a": .int(1), "b": whole["b"] ?? .null, "d": .string("é")])
        XCTAssertEqual(try read(#"{"items": []}"#).elements, [])
        XCTAssertEqual(try read("{}").members, [:])
    }

    func testElementsAcrossBufferBoundaries() throws {
        let items = (0..<30_000).map { JSONValue.object(["n": .int($0), "pad": .string(String(repeating: "\u{e9}\"", count: $0 % 7))]) }
        let text = JSONValue.object(["items": .array(items), "z": .string("end")]).serialized(pretty: true)
        XCTAssertGreaterThan(text.utf8.count, 1 << 20, "more than one buffer")
        let streamed = try read(text)
        XCTAssertEqual(streamed.elements, items)
        XCTAssertEqual(streamed.members["z"], .string("end"))
    }

    func testBrokenDocumentsAreRefusedWithTheirPlace() {
        let cases = [
            "", "[1]", #"{"items": [1, 2"#, #"{"items": [1 2]}"#, #"{"a": 1, "a": 2}"#, #"{"a": tru}"#, #"{"a": 1} x"#,
            #"{"items": ["unterminated]}"#, #"{1: 2}"#, #"{"a" 1}"#,
        ]
        for text in cases {
            XCTAssertThrowsError(try read(text), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("byte "), "\(error)")
            }
        }
        XCTAssertThrowsError(try read(#"{"items": ["\#(String(repeating: "x", count: 100))"]}"#, maximumPiece: 50)) { error in
            XCTAssertTrue("\(error)".contains("larger than 50 bytes"), "\(error)")
        }
    }

    func testOnlyRegularFilesAreOpened() throws {
        XCTAssertNil(JSONObjectStream(path: "/nonexistent.json"))
        let directory = try TemporaryDirectory(prefix: "stream")
        defer { directory.remove() }
        XCTAssertNil(JSONObjectStream(path: directory.path))
        XCTAssertEqual(mkfifo(directory.path + "/pipe", 0o644), 0)
        XCTAssertNil(JSONObjectStream(path: directory.path + "/pipe"), "a pipe neither blocks nor is read")
    }
}
