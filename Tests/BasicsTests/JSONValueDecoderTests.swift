import Basics
import Foundation
import XCTest

/// Codable types read from a parsed `JSONValue` read as Foundation's decoder reads the same text.
final class JSONValueDecoderTests: XCTestCase {
    private struct Sample: Codable, Equatable {
        struct Inner: Codable, Equatable { var name: String; var tags: [String] }
        var count: Int
        var size: Int64?
        var ratio: Double
        var flag: Bool
        var text: String
        var missing: String?
        var inner: Inner
        var list: [Inner]
        var map: [String: Int]
        var any: JSONValue
        var nested: [[Int]]
    }

    private let text = #"""
        {"count": 3, "size": null, "ratio": 2, "flag": true, "text": "é\n", "inner": {"name": "a", "tags": ["x", "y"]},
         "list": [{"name": "b", "tags": []}], "map": {"k": 1}, "any": {"z": [1, 2.5, null, "s"]}, "nested": [[1], [], [2, 3]]}
        """#

    func testReadsAsFoundationReadsTheText() throws {
        let parsed = try JSONValue.parse(Data(text.utf8))
        let fromValue = try JSONValueDecoder.decode(Sample.self, from: parsed)
        XCTAssertEqual(fromValue, try JSONDecoder().decode(Sample.self, from: Data(text.utf8)))
        XCTAssertNil(fromValue.size)
        XCTAssertEqual(fromValue.ratio, 2)
        XCTAssertEqual(fromValue.any, .object(["z": .array([.int(1), .double(2.5), .null, .string("s")])]))
    }

    func testAWrongTypeNamesWhereItIs() throws {
        let parsed = try JSONValue.parse(Data(text.replacingOccurrences(of: #""tags": ["x", "y"]"#, with: #""tags": ["x", 1]"#).utf8))
        XCTAssertThrowsError(try JSONValueDecoder.decode(Sample.self, from: parsed)) { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["inner", "tags", "Index 1"])
        }
    }

    func testNumbersFitOrFail() throws {
        XCTAssertEqual(try JSONValueDecoder.decode(Int8?.self, from: .null), nil)
        XCTAssertEqual(try JSONValueDecoder.decode(Int8.self, from: .int(-8)), -8)
        XCTAssertThrowsError(try JSONValueDecoder.decode(UInt8.self, from: .int(256)))
        XCTAssertEqual(try JSONValueDecoder.decode(UInt32.self, from: .int(7)), 7)
        XCTAssertEqual(try JSONValueDecoder.decode(Int.self, from: .double(4)), 4)
        XCTAssertThrowsError(try JSONValueDecoder.decode(UInt32.self, from: .int(-1)))
        XCTAssertThrowsError(try JSONValueDecoder.decode(Int.self, from: .double(4.5)))
        XCTAssertThrowsError(try JSONValueDecoder.decode(Int.self, from: .string("4")))
        XCTAssertThrowsError(try JSONValueDecoder.decode(String.self, from: .null))
    }
}

/// Codable types written as a `JSONValue` hold what Foundation's encoder writes of them.
final class JSONValueEncoderTests: XCTestCase {
    private struct Sample: Codable, Equatable {
        struct Inner: Codable, Equatable { var name: String; var tags: [String]; var bytes: UInt8 }
        var count: Int
        var size: Int64?
        var ratio: Double
        var flag: Bool
        var inner: Inner
        var list: [Inner?]
        var map: [String: [Int]]
        var any: JSONValue
    }

    func testWritesWhatFoundationWrites() throws {
        let sample = Sample(
            count: -3, size: nil, ratio: 2.5, flag: false, inner: .init(name: "é\u{1b}", tags: ["x"], bytes: 255), list: [nil, .init(name: "", tags: [], bytes: 0)],
            map: ["k": [1, 2], "": []], any: .object(["z": .array([.int(1), .null])]))
        let written = try JSONValueEncoder.encode(sample)
        XCTAssertEqual(written, JSONValue.encoding(sample))
        XCTAssertNil(written["size"], "nil is left out, as encodeIfPresent leaves it")
        XCTAssertEqual(try JSONValueDecoder.decode(Sample.self, from: written), sample)
    }

    func testANumberThatIsNoneIsRefused() {
        XCTAssertThrowsError(try JSONValueEncoder.encode([Double.nan]))
        XCTAssertThrowsError(try JSONValueEncoder.encode(UInt64.max))
    }
}
