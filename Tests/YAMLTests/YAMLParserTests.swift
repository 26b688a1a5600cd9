import Foundation
import Basics
import XCTest
import YAML

final class YAMLParserLocationTests: XCTestCase {
    private let text = """
        name: demo
        steps:
          thumb:
            width: 200
          list:
            - x
            - y

        """

    func testBlockLocations() throws {
        let root = try parsedRoot(text)
        XCTAssertEqual(root.location, loc(1, 1))
        XCTAssertEqual(root.member("name")?.location, loc(1, 7))
        XCTAssertEqual(root.memberKey("steps")?.location, loc(2, 1))
        let steps = try XCTUnwrap(root.member("steps"))
        XCTAssertEqual(steps.location, loc(3, 3))
        let thumb = try XCTUnwrap(steps.member("thumb"))
        XCTAssertEqual(thumb.location, loc(4, 5))
        XCTAssertEqual(thumb.memberKey("width")?.location, loc(4, 5))
        XCTAssertEqual(thumb.member("width")?.location, loc(4, 12))
        let list = try XCTUnwrap(steps.member("list"))
        XCTAssertEqual(list.location, loc(6, 5))
        XCTAssertEqual(list.element(0)?.location, loc(6, 7))
        XCTAssertEqual(list.element(1)?.location, loc(7, 7))
        XCTAssertEqual(sketch(root), "{name: demo, steps: {thumb: {width: 200}, list: [x, y]}}")
    }

    func testFlowLocations() throws {
        let root = try parsedRoot("a: [1, {b: 2}]\n")
        let sequence = try XCTUnwrap(root.member("a"))
        XCTAssertEqual(sequence.location, loc(1, 4))
        XCTAssertEqual(sequence.element(0)?.location, loc(1, 5))
        XCTAssertEqual(sequence.element(1)?.location, loc(1, 8))
        XCTAssertEqual(sequence.element(1)?.member("b")?.location, loc(1, 12))
    }

    func testSequenceOfMappings() throws {
        let root = try parsedRoot("- a\n- b: 1\n  c: 2\n")
        XCTAssertEqual(root.element(0)?.location, loc(1, 3))
        XCTAssertEqual(root.element(1)?.location, loc(2, 3))
        XCTAssertEqual(root.element(1)?.member("c")?.location, loc(3, 6))
    }

    func testColumnsCountCharactersNotBytes() throws {
        let root = try parsedRoot("é: x\n")
        XCTAssertEqual(root.member("é")?.location, loc(1, 4))
    }

    func testLocationsUseTheParserFileName() throws {
        let root = try parsedRoot("a: 1\n", parser: YAMLParser(file: "dir/other.yml"))
        XCTAssertEqual(root.member("a")?.location, SourceLocation(file: "dir/other.yml", line: 1, column: 4))
    }
}

final class YAMLParserDocumentTests: XCTestCase {
    func testEmptyInputHasNoRoot() throws {
        XCTAssertNil(try parseYAML("").get())
        XCTAssertNil(try parseYAML("# only a comment\n").get())
    }

    func testExplicitDocumentStartIsOneDocument() throws {
        let root = try parsedRoot("---\na: 1\n")
        XCTAssertEqual(sketch(root), "{a: 1}")
    }

    func testTwoDocumentsAreRefused() {
        XCTAssertEqual(parseFailure("a: 1\n---\nb: 2\n"), [
            .error(
                "yaml.multiple-documents", "the file holds more than one YAML document", at: loc(2, 1),
                hint: "keep one document per file; remove the '---' separator"),
        ])
    }

    func testScalarStyles() throws {
        let root = try parsedRoot("p: plain\ns: 'single'\nd: \"double\"\nl: |\n  lit\nf: >\n  fold\n")
        let cases: [(String, Scalar)] = [
            ("p", Scalar("plain", style: .plain)),
            ("s", Scalar("single", style: .singleQuoted)),
            ("d", Scalar("double", style: .doubleQuoted)),
            ("l", Scalar("lit\n", style: .literal)),
            ("f", Scalar("fold\n", style: .folded)),
        ]
        for (key, scalar) in cases {
            XCTAssertEqual(root.member(key)?.scalar, scalar, key)
        }
    }
}
