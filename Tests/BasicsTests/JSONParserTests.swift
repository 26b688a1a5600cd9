import Foundation
import Basics
import XCTest

/// The strict JSON reader: what it accepts, what it refuses and where it says the problem is.
final class JSONParserTests: XCTestCase {
    func testAcceptsEveryKindOfValue() throws {
        let cases: [(String, JSONValue)] = [
            ("null", .null), (" true ", .bool(true)), ("false", .bool(false)),
            ("0", .int(0)), ("-12", .int(-12)), ("9223372036854775807", .int(Int.max)),
            ("9223372036854775808", .double(9223372036854775808)), ("1.5", .double(1.5)), ("-2e3", .double(-2000)),
            (#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#, .string("a\"b\\c/d\n\té😀")),
            ("[1, [], {}]", .array([.int(1), .array([]), .object([:])])),
            (#"{"a": {"b": [null]}, "c": "d"}"#, .object(["a": .object(["b": .array([.null])]), "c": .string("d")])),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try JSONParser.parse(Data(text.utf8)), expected, text)
        }
    }

    func testRefusesDuplicateKeysEvenWhenEqualOnlyAfterUnescaping() {
        let cases: [(String, String)] = [
            (#"{"width": 10, "width": 4000}"#, "width"),
            (#"{"w\u0069dth": 10, "width": 4000}"#, "width"),
            (#"{"steps": {}, "auth": {"key": "a"}, "auth": {"key": "b"}}"#, "auth"),
            (#"[{"a": {"x": 1, "x": 1}}]"#, "x"),
        ]
        for (text, key) in cases {
            XCTAssertThrowsError(try JSONParser.parse(Data(text.utf8)), text) { error in
                let error = error as? JSONParseError
                XCTAssertEqual(error?.kind, .duplicateKey(key), text)
                XCTAssertEqual(error?.code, "DUPLICATE_KEY", text)
            }
        }
    }

    func testRefusesWhatIsNotStrictJSON() {
        let cases = [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "NaN", "tru", "nul",
            "\"unterminated", "\"tab\there\"", #""\x""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#,
            "1 2", "{} x", "{'a': 1}", "{a: 1}", "1e999",
        ]
        for text in cases {
            XCTAssertThrowsError(try JSONParser.parse(Data(text.utf8)), text) { error in
                XCTAssertEqual((error as? JSONParseError)?.code, "INVALID_JSON", text)
            }
        }
        XCTAssertThrowsError(try JSONParser.parse(Data([0x22, 0xC3, 0x28, 0x22])), "invalid UTF-8")
    }

    func testRefusesDeepNestingWithoutRecursingForever() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(Data(deep.utf8))) { error in
            XCTAssertEqual((error as? JSONParseError)?.kind, .tooDeep)
        }
        let allowed = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        XCTAssertNoThrow(try JSONParser.parse(Data(allowed.utf8)))
    }

    func testErrorsSayLineAndColumn() {
        let text = "{\n  \"a\": 1,\n  \"a\": 2\n}"
        XCTAssertThrowsError(try JSONParser.parse(Data(text.utf8))) { error in
            let error = error as? JSONParseError
            XCTAssertEqual(error?.line, 3)
            XCTAssertEqual(error?.column, 3)
            XCTAssertEqual(error?.description, "line 3, column 3: the key 'a' appears twice in one object")
        }
    }

    func testSerializedValuesReadBackTheSame() throws {
        let value: JSONValue = .object([
            "s": .string("q\"\\\u{01}é😀"), "n": .array([.int(-1), .double(0.25), .null, .bool(false)]), "o": .object(["": .string("")]),
        ])
        XCTAssertEqual(try JSONParser.parse(Data(value.serialized().utf8)), value)
        XCTAssertEqual(try JSONParser.parse(Data(value.serialized(pretty: true).utf8)), value)
    }

    func testStateFilesWithDuplicateKeysAreRefused() {
        struct State: Codable { var id: String }
        XCTAssertEqual(try StateCoding.decode(State.self, from: Data(#"{"id":"a"}"#.utf8)).id, "a")
        XCTAssertThrowsError(try StateCoding.decode(State.self, from: Data(#"{"id":"a","id":"b"}"#.utf8)))
    }
}
