import Basics
import XCTest
import YAML

final class ScalarResolutionTests: XCTestCase {
    func testPlainScalarsUnderTheCoreSchema() {
        let cases: [(String, ResolvedScalar)] = [
            ("yes", .string("yes")),
            ("no", .string("no")),
            ("on", .string("on")),
            ("true", .bool(true)),
            ("True", .bool(true)),
            ("TRUE", .bool(true)),
            ("false", .bool(false)),
            ("FALSE", .bool(false)),
            ("tRUE", .string("tRUE")),
            ("~", .null),
            ("null", .null),
            ("", .null),
            ("42", .int(42)),
            ("-7", .int(-7)),
            ("+3", .int(3)),
            ("0123", .int(123)),
            ("0x1F", .int(31)),
            ("0o17", .int(15)),
            ("0x", .string("0x")),
            ("0xZZ", .string("0xZZ")),
            ("1e3", .double(1000)),
            ("1.5", .double(1.5)),
            (".5", .double(0.5)),
            ("-2.5E-1", .double(-0.25)),
            (".inf", .double(.infinity)),
            ("+.Inf", .double(.infinity)),
            ("-.inf", .double(-.infinity)),
            ("1_000", .string("1_000")),
            ("12abc", .string("12abc")),
            ("1e", .string("1e")),
            ("e3", .string("e3")),
            (".", .string(".")),
            ("1.2.3", .string("1.2.3")),
            ("15m", .string("15m")),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(Scalar.resolvePlain(text), expected, "'\(text)'")
        }
    }

    func testNaN() {
        guard case .double(let value) = Scalar.resolvePlain(".nan") else { return XCTFail("not a number") }
        XCTAssertTrue(value.isNaN)
    }

    func testOnlyPlainScalarsAreResolved() {
        XCTAssertEqual(Scalar("123", style: .doubleQuoted).resolved(), .string("123"))
        XCTAssertEqual(Scalar("true", style: .singleQuoted).resolved(), .string("true"))
        XCTAssertEqual(Scalar("~", style: .literal).resolved(), .string("~"))
        XCTAssertEqual(Scalar("12").resolved(tag: "!!str"), .string("12"))
        XCTAssertEqual(Scalar("12").resolved(tag: "tag:yaml.org,2002:str"), .string("12"))
        XCTAssertEqual(Scalar("12").resolved(), .int(12))
    }

    func testResolutionThroughTheParser() throws {
        let root = try parsedRoot("""
            a: yes
            b: true
            c: ~
            d: 0x1F
            e: 1e3
            f: .inf
            g: "123"
            h: !!str 12
            i: '~'
            j: |
              true
            k:

            """)
        let cases: [(String, ResolvedScalar)] = [
            ("a", .string("yes")),
            ("b", .bool(true)),
            ("c", .null),
            ("d", .int(31)),
            ("e", .double(1000)),
            ("f", .double(.infinity)),
            ("g", .string("123")),
            ("h", .string("12")),
            ("i", .string("~")),
            ("j", .string("true\n")),
            ("k", .null),
        ]
        for (key, expected) in cases {
            XCTAssertEqual(root.member(key)?.resolvedValue, expected, key)
        }
        XCTAssertEqual(root.member("h")?.tag, "tag:yaml.org,2002:str")
        XCTAssertNil(root.member("a")?.tag)
    }

    func testKindDescriptions() throws {
        let root = try parsedRoot("s: x\nb: false\nn: null\ni: 1\nd: 1.5\nm: {}\nq: []\n")
        let cases: [(String, String)] = [
            ("s", "a string"), ("b", "a boolean"), ("n", "null"), ("i", "an integer"), ("d", "a number"),
            ("m", "a mapping"), ("q", "a sequence"),
        ]
        for (key, description) in cases {
            XCTAssertEqual(root.member(key)?.kindDescription, description, key)
        }
        XCTAssertEqual(root.kindDescription, "a mapping")
    }
}
