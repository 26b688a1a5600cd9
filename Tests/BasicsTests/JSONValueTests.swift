import Foundation
import Basics
import XCTest

final class JSONValueSerializationTests: XCTestCase {
    func testKeysAreSortedByUTF8Bytes() {
        let value: JSONValue = .object([
            "b": .int(1), "a": .int(2), "B": .int(3), "_": .int(4), "aa": .int(5),
            "é": .int(6), "\u{FF61}": .int(7), "\u{1F600}": .int(8),
        ])
        // 'B' (0x42) < '_' (0x5F) < 'a' < 'aa' < 'b' < é (C3) < U+FF61 (EF) < U+1F600 (F0)
        let expected = "{\"B\":3,\"_\":4,\"a\":2,\"aa\":5,\"b\":1,\"é\":6,\"\u{FF61}\":7,\"\u{1F600}\":8}"
        XCTAssertEqual(value.serialized(), expected)
    }

    func testStringEscaping() {
        let value = JSONValue.string("q\"b\\n\nr\rt\tc\u{01}d\u{1F}e\u{7F}é/😀")
        XCTAssertEqual(value.serialized(), #""q\"b\\n\nr\rt\tc\u0001d\u001fe\u007fé/😀""#)
    }

    func testRunsOfHashesStartNoCIWorkflowCommand() throws {
        for text in ["a##[add-mask]b", "##vso[x]", "###[", "#a#", "x ##vso[task.setvariable variable=X]1", "é##[", "##\u{202E}"] {
            for value in [JSONValue.string(text), .object([text: .string(text)])] {
                for written in [value.serialized(), value.serialized(pretty: true)] {
                    XCTAssertFalse(written.contains("##"), written)
                    XCTAssertEqual(try JSONValue.parse(Data(written.utf8)), value, written)
                }
            }
        }
        XCTAssertEqual(JSONValue.string("a##[b").serialized(), #""a#\u0023[b""#)
        XCTAssertEqual(JSONValue.string("#a#").serialized(), "\"#a#\"")
    }

    func testKeysAreEscapedLikeStrings() {
        let value: JSONValue = .object(["a\"b": .null, "tab\t": .bool(true)])
        XCTAssertEqual(value.serialized(), #"{"a\"b":null,"tab\t":true}"#)
    }

    func testScalars() {
        let cases: [(JSONValue, String)] = [
            (.null, "null"),
            (.bool(true), "true"),
            (.bool(false), "false"),
            (.int(0), "0"),
            (.int(-42), "-42"),
            (.int(Int.max), "9223372036854775807"),
            (.string(""), "\"\""),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(value.serialized(), expected, "\(value)")
            XCTAssertEqual(value.serialized(pretty: true), expected, "\(value)")
        }
    }

    func testDoubles() {
        let cases: [(Double, String)] = [
            (3.0, "3"),
            (-2.0, "-2"),
            (0.0, "0"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (-0.25, "-0.25"),
            (123_456_789_012_345.0, "123456789012345"),
            (1e20, "1e+20"),
            (.nan, "null"),
            (.infinity, "null"),
            (-.infinity, "null"),
        ]
        for (number, expected) in cases {
            XCTAssertEqual(JSONValue.double(number).serialized(), expected, "\(number)")
        }
    }

    func testEmptyCollections() {
        XCTAssertEqual(JSONValue.array([]).serialized(), "[]")
        XCTAssertEqual(JSONValue.object([:]).serialized(), "{}")
        XCTAssertEqual(JSONValue.array([]).serialized(pretty: true), "[]")
        XCTAssertEqual(JSONValue.object([:]).serialized(pretty: true), "{}")
    }

    private let nested: JSONValue = .object([
        "name": .string("x"),
        "list": .array([.int(1), .object(["k": .null])]),
        "empty": .array([]),
        "none": .object([:]),
    ])

    func testCompactNested() {
        XCTAssertEqual(nested.serialized(), #"{"empty":[],"list":[1,{"k":null}],"name":"x","none":{}}"#)
    }

    func testPrettyNested() {
        let expected = [
            "{",
            "  \"empty\": [],",
            "  \"list\": [",
            "    1,",
            "    {",
            "      \"k\": null",
            "    }",
            "  ],",
            "  \"name\": \"x\",",
            "  \"none\": {}",
            "}",
        ].joined(separator: "\n")
        XCTAssertEqual(nested.serialized(pretty: true), expected)
    }

    func testSerializationIsDeterministic() {
        var members: [String: JSONValue] = [:]
        for index in 0..<50 { members["key\(index)"] = .int(index) }
        let first = JSONValue.object(members).serialized()
        for _ in 0..<5 {
            XCTAssertEqual(JSONValue.object(members).serialized(), first)
        }
    }
}

final class JSONValueParsingTests: XCTestCase {
    func testParseKeepsIntsDoublesAndBoolsApart() throws {
        let text = #"{"a":true,"b":1,"c":1.5,"d":null,"e":"x","f":[false,0,-3,2.25],"g":{}}"#
        let value = try JSONValue.parse(Data(text.utf8))
        XCTAssertEqual(value, .object([
            "a": .bool(true),
            "b": .int(1),
            "c": .double(1.5),
            "d": .null,
            "e": .string("x"),
            "f": .array([.bool(false), .int(0), .int(-3), .double(2.25)]),
            "g": .object([:]),
        ]))
        XCTAssertEqual(value.serialized(), text)
    }

    func testRoundTripThroughPrettyText() throws {
        let value: JSONValue = .object(["s": .string("é\n\"q\""), "n": .array([.int(7), .double(0.5), .bool(false)])])
        let parsed = try JSONValue.parse(Data(value.serialized(pretty: true).utf8))
        XCTAssertEqual(parsed, value)
    }

    func testParseRejectsBrokenText() {
        XCTAssertThrowsError(try JSONValue.parse(Data("{\"a\":".utf8)))
        XCTAssertThrowsError(try JSONValue.parse(Data("".utf8)))
    }
}

final class JSONValueAccessorTests: XCTestCase {
    func testAccessors() {
        XCTAssertEqual(JSONValue.int(3).intValue, 3)
        XCTAssertEqual(JSONValue.double(2.0).intValue, 2)
        XCTAssertNil(JSONValue.double(2.5).intValue)
        XCTAssertNil(JSONValue.string("2").intValue)
        XCTAssertEqual(JSONValue.int(3).doubleValue, 3.0)
        XCTAssertNil(JSONValue.bool(true).doubleValue)
        XCTAssertEqual(JSONValue.bool(true).boolValue, true)
        XCTAssertNil(JSONValue.int(1).boolValue)
        XCTAssertEqual(JSONValue.object(["k": .int(1)])["k"], .int(1))
        XCTAssertNil(JSONValue.array([.int(1)])["k"])
    }

    func testTypeNames() {
        let cases: [(JSONValue, String)] = [
            (.null, "null"), (.bool(true), "boolean"), (.int(1), "integer"), (.double(1.5), "number"),
            (.string(""), "string"), (.array([]), "array"), (.object([:]), "object"),
        ]
        for (value, name) in cases {
            XCTAssertEqual(value.typeName, name)
        }
    }

    func testNumericEquality() {
        XCTAssertTrue(JSONValue.int(1).numericallyEquals(.double(1.0)))
        XCTAssertFalse(JSONValue.int(1).numericallyEquals(.double(1.5)))
        XCTAssertFalse(JSONValue.int(1).numericallyEquals(.string("1")))
        XCTAssertTrue(JSONValue.string("a").numericallyEquals(.string("a")))
        XCTAssertNotEqual(JSONValue.int(1), JSONValue.double(1.0))
    }
}
