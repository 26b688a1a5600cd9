import Basics
import XCTest
import YAML

final class AnchorAliasTests: XCTestCase {
    func testAliasReusesAMapping() throws {
        let root = try parsedRoot("base: &b {x: 1, y: 2}\nother: *b\n")
        let other = try XCTUnwrap(root.member("other"))
        XCTAssertEqual(sketch(other), "{x: 1, y: 2}")
        // The alias node sits where the alias is written; its content keeps the anchor's locations.
        XCTAssertEqual(other.location, loc(2, 8))
        XCTAssertEqual(other.member("x")?.location, loc(1, 14))
        XCTAssertEqual(root.member("base")?.location, loc(1, 7))
    }

    func testAliasReusesScalars() throws {
        let root = try parsedRoot("a: &v hello\nb: *v\nc: [*v, *v]\n")
        XCTAssertEqual(sketch(root), "{a: hello, b: hello, c: [hello, hello]}")
        XCTAssertEqual(root.member("c")?.element(1)?.location, loc(3, 9))
    }

    func testAnchorCanBeRedefined() throws {
        let root = try parsedRoot("a: &v one\nb: *v\nc: &v two\nd: *v\n")
        XCTAssertEqual(sketch(root), "{a: one, b: one, c: two, d: two}")
    }

    func testUnknownAnchor() {
        XCTAssertEqual(parseFailure("a: *nope\n"), [
            .error(
                "yaml.unknown-anchor", "alias '*nope' refers to an anchor that is not defined above it", at: loc(1, 4),
                hint: "define '&nope' on a value before this alias, or quote it (\"*nope\") if it is a file pattern"),
        ])
    }

    func testAliasBeforeItsAnchorIsUnknown() {
        XCTAssertEqual(parseFailure("a: *x\nb: &x 1\n").map(\.id), ["yaml.unknown-anchor"])
    }

    func testBillionLaughsIsRefused() {
        let names = Array("abcdefghi").map(String.init)
        var lines = ["a: &a [" + Array(repeating: "lol", count: 10).joined(separator: ", ") + "]"]
        for (previous, name) in zip(names, names.dropFirst()) {
            lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]")
        }
        let text = lines.joined(separator: "\n") + "\n"
        // Level 'e' holds 10 copies of 11 111 nodes; its 10th alias passes 100 000.
        XCTAssertEqual(parseFailure(text), [
            .error(
                "yaml.alias-expansion", "the document expands to more than 100000 nodes once aliases are resolved",
                at: loc(5, 44),
                hint: "this looks like an alias bomb ('billion laughs'); write the values out or nest fewer aliases"),
        ])
    }

    func testExpansionLimitIsConfigurable() throws {
        let text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: [*a, *a, *a, *a, *a]\n"
        let small = YAMLParser(file: "t.yml", maxExpandedNodes: 50)
        XCTAssertEqual(parseFailure(text, parser: small).map(\.id), ["yaml.alias-expansion"])
        let root = try parsedRoot(text, parser: YAMLParser(file: "t.yml", maxExpandedNodes: 100))
        XCTAssertEqual(root.member("b")?.elements?.count, 5)
        XCTAssertEqual(root.member("b")?.element(4)?.elements?.count, 10)
    }
}
