import Foundation
import Basics
import XCTest
import YAML

final class DuplicateKeyTests: XCTestCase {
    func testDuplicateKeyPointsAtTheSecondKeyWithANoteOnTheFirst() {
        XCTAssertEqual(parseFailure("a: 1\nb: 2\na: 3\n"), [
            .error(
                "yaml.duplicate-key", "duplicate key 'a'", at: loc(3, 1),
                hint: "remove one of the two; YAML keys must be unique within a mapping",
                notes: [.init("'a' is first set here", at: loc(1, 1))]),
        ])
    }

    func testNestedDuplicateKey() {
        let diagnostics = parseFailure("outer:\n  k: 1\n  k: 2\n")
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.duplicate-key"])
        XCTAssertEqual(diagnostics.first?.location, loc(3, 3))
        XCTAssertEqual(diagnostics.first?.notes.first?.location, loc(2, 3))
    }

    func testQuotedAndPlainSpellingsOfTheSameKeyAreDuplicates() {
        let diagnostics = parseFailure("'a': 1\na: 2\n")
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.duplicate-key"])
        XCTAssertEqual(diagnostics.first?.location, loc(2, 1))
    }

    func testSameKeyInSiblingMappingsIsFine() throws {
        let root = try parsedRoot("a: {k: 1}\nb: {k: 2}\n")
        XCTAssertEqual(sketch(root), "{a: {k: 1}, b: {k: 2}}")
    }

    func testAllTreeProblemsAreReportedTogether() {
        let diagnostics = parseFailure("a: 1\na: 2\nb:\n  <<: 5\n")
        XCTAssertEqual(diagnostics.map(\.id).sorted(), ["yaml.duplicate-key", "yaml.invalid-merge"])
    }

    func testComplexKey() {
        let diagnostics = parseFailure("? [a, b]\n: 1\n")
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.complex-key"])
        XCTAssertEqual(diagnostics.first?.location, loc(1, 3))
        XCTAssertEqual(diagnostics.first?.message, "mapping keys must be plain values, not a sequence")
    }
}

final class YAMLSyntaxErrorTests: XCTestCase {
    func testTabIndentation() {
        XCTAssertEqual(parseFailure("a:\n\tb: 1\n"), [
            .error(
                "yaml.syntax", "found character that cannot start any token while scanning for the next token",
                at: loc(2, 1), hint: "YAML does not allow tabs for indentation; indent with spaces"),
        ])
    }

    func testAnUnquotedGlobIsToldToBeQuoted() {
        for (text, pattern) in [("inputs: [*.png]\n", "*.png"), ("inputs:\n  - **/*.jpg\n", "**/*.jpg"), ("inputs: *.{png,gif}\n", "*.{png")] {
            let diagnostics = parseFailure(text)
            XCTAssertEqual(diagnostics.map(\.id), ["yaml.syntax"], text)
            XCTAssertEqual(diagnostics.first?.hint, "a value starting with '*' is a YAML alias; quote a file pattern: \"\(pattern)\"", text)
        }
        // A star and a name is an alias to a missing anchor: either may be meant.
        XCTAssertEqual(parseFailure("inputs: [*png]\n").first?.hint, "define '&png' on a value before this alias, or quote it (\"*png\") if it is a file pattern")
    }

    func testTabAfterAValueMentionsTabs() {
        let diagnostics = parseFailure("a: 1\n\tb: 2\n")
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.syntax"])
        XCTAssertEqual(diagnostics.first?.location, loc(2, 1))
        XCTAssertEqual(diagnostics.first?.hint?.contains("tabs"), true)
    }

    func testUnclosedFlowSequence() {
        XCTAssertEqual(parseFailure("items: [a, b\n"), [
            .error(
                "yaml.syntax", "did not find expected ',' or ']' while parsing a flow sequence", at: loc(2, 1),
                hint: "close the list with ']', or quote values that contain ',' '[' or ']'",
                notes: [.init("parsing a flow sequence that starts here", at: loc(1, 8))]),
        ])
    }

    func testMappingValueInsideAPlainValue() {
        XCTAssertEqual(parseFailure("key: value: x\n"), [
            .error(
                "yaml.syntax", "mapping values are not allowed in this context", at: loc(1, 11),
                hint: "a value containing ': ' must be quoted, or a nested mapping must go on its own indented lines"),
        ])
    }

    func testControlCharacterIsLocated() {
        XCTAssertEqual(parseFailure("a: 1\nb: \u{01}\n"), [
            .error(
                "yaml.syntax", "control characters are not allowed", at: loc(2, 4),
                hint: "check the YAML syntax near this position"),
        ])
    }

    func testTooDeep() {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        XCTAssertEqual(parseFailure(text), [
            .error(
                "yaml.too-deep", "collections are nested more than 128 levels deep", at: loc(1, 129),
                hint: "flatten the structure"),
        ])
    }

    func testDepthLimitIsConfigurable() throws {
        let parser = YAMLParser(file: "t.yml", maxDepth: 3)
        let tooDeep = parseFailure("a:\n  b:\n    c: {d: 1}\n", parser: parser)
        XCTAssertEqual(tooDeep.map(\.id), ["yaml.too-deep"])
        XCTAssertEqual(tooDeep.first?.location, loc(3, 8))
        XCTAssertEqual(sketch(try parsedRoot("a:\n  b:\n    c: 1\n", parser: parser)), "{a: {b: {c: 1}}}")
    }
}

final class YAMLInputCheckTests: XCTestCase {
    func testNulByte() {
        XCTAssertEqual(parseFailure(Data("a: 1\nb: \u{0}x\n".utf8)), [
            .error(
                "yaml.binary-file", "the file contains a NUL byte; it looks like a binary file, not YAML", at: loc(2, 4),
                hint: "check that the path names the YAML manifest, not a data file"),
        ])
    }

    func testInvalidUTF8() {
        XCTAssertEqual(parseFailure(Data([0x61, 0x3A, 0x20, 0xFF])), [
            .error("yaml.invalid-utf8", "the file is not valid UTF-8 (byte 0xff)", at: loc(1, 4), hint: "save the file as UTF-8"),
        ])
    }

    func testInvalidUTF8ColumnCountsCharacters() {
        let data = Data("a: 1\nbé: ".utf8) + Data([0xFE, 0x0A])
        let diagnostics = parseFailure(data)
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.invalid-utf8"])
        XCTAssertEqual(diagnostics.first?.location, loc(2, 5))
        XCTAssertEqual(diagnostics.first?.message, "the file is not valid UTF-8 (byte 0xfe)")
    }

    func testMalformedSequences() {
        let cases: [([UInt8], SourceLocation)] = [
            ([0x61, 0xC3], loc(1, 2)),              // truncated two-byte sequence at the end
            ([0x61, 0xC3, 0x28], loc(1, 2)),        // lead byte followed by a non-continuation byte
            ([0xC0, 0xAF], loc(1, 1)),              // overlong lead byte
            ([0xED, 0xA0, 0x80], loc(1, 1)),        // UTF-16 surrogate
            ([0xE0, 0x80, 0x80], loc(1, 1)),        // overlong three-byte form
            ([0x78, 0x0A, 0x80], loc(2, 1)),        // lone continuation byte
        ]
        for (bytes, location) in cases {
            let diagnostics = parseFailure(Data(bytes))
            XCTAssertEqual(diagnostics.map(\.id), ["yaml.invalid-utf8"], "\(bytes)")
            XCTAssertEqual(diagnostics.first?.location, location, "\(bytes)")
        }
    }

    func testValidMultibyteTextIsAccepted() throws {
        let root = try parsedRoot("name: \"日本語 😀 é\"\n")
        XCTAssertEqual(root.member("name")?.scalar?.text, "日本語 😀 é")
    }
}
