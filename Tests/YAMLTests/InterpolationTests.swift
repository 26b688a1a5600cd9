import XCTest
import YAML

final class InterpolationTests: XCTestCase {
    private let environment = ["A": "alpha", "EMPTY": "", "N": "5", "REF": "${A}", "DOLLAR": "$$"]

    func testExpansion() {
        let cases: [(String, Interpolation.Outcome)] = [
            ("no references", .text("no references")),
            ("${A}", .text("alpha")),
            ("x-${A}-y", .text("x-alpha-y")),
            ("${A}${N}", .text("alpha5")),
            ("${EMPTY}", .text("")),
            ("${B:-dflt}", .text("dflt")),
            ("${A:-dflt}", .text("alpha")),
            ("${EMPTY:-dflt}", .text("dflt")),
            ("${B:-}", .text("")),
            ("${B:-x:-y}", .text("x:-y")),
            ("${B:-a b}", .text("a b")),
            ("$$", .text("$")),
            ("a$$b", .text("a$b")),
            ("$${A}", .text("${A}")),
            ("$$$$", .text("$$")),
            ("$5", .text("$5")),
            ("$A", .text("$A")),
            ("$", .text("$")),
            ("cost: 5$", .text("cost: 5$")),
            ("${REF}", .text("${A}")),
            ("${DOLLAR}", .text("$$")),
        ]
        for (text, outcome) in cases {
            XCTAssertEqual(Interpolation.expand(text, environment: environment), outcome, "'\(text)'")
        }
    }

    func testMalformed() {
        let unclosed = "'${' is not closed with '}'"
        let cases: [(String, Interpolation.Outcome)] = [
            ("${", .malformed(reason: unclosed, offset: 0)),
            ("ab${A", .malformed(reason: unclosed, offset: 2)),
            ("${A}${B", .malformed(reason: unclosed, offset: 4)),
            ("x${}", .malformed(reason: "'' is not a valid variable name", offset: 1)),
            ("${:-d}", .malformed(reason: "'' is not a valid variable name", offset: 0)),
            ("${1A:-d}", .malformed(reason: "'1A' is not a valid variable name", offset: 0)),
        ]
        for (text, outcome) in cases {
            XCTAssertEqual(Interpolation.expand(text, environment: environment), outcome, "'\(text)'")
        }
    }

    func testTransloaditExpressionsAreLeftForTheService() {
        for text in ["${file.size <= 720}", "${Math.max(file.meta.width, 100)}", "${/image/.test(file.mime)}", "w=${A-B}", "${file.meta['width']}"] {
            XCTAssertEqual(Interpolation.expand(text, environment: environment), .text(text), text)
        }
    }

    func testUnsetVariableReportsItsCharacterOffset() {
        let cases: [(String, Interpolation.Outcome)] = [
            ("${MISSING}", .unset(name: "MISSING", offset: 0)),
            ("ab${MISSING}", .unset(name: "MISSING", offset: 2)),
            ("é${MISSING}", .unset(name: "MISSING", offset: 1)),
            ("😀日${MISSING}", .unset(name: "MISSING", offset: 2)),
            ("${A}/${MISSING}", .unset(name: "MISSING", offset: 5)),
            ("$$${MISSING}", .unset(name: "MISSING", offset: 2)),
        ]
        for (text, outcome) in cases {
            XCTAssertEqual(Interpolation.expand(text, environment: environment), outcome, "'\(text)'")
        }
    }

    func testVariableNames() {
        let cases: [(String, Bool)] = [
            ("A", true), ("_x1", true), ("a_b_C9", true), ("1A", false), ("", false), ("é", false),
            ("A-B", false), ("A B", false),
        ]
        for (name, valid) in cases {
            XCTAssertEqual(Interpolation.isVariableName(name), valid, "'\(name)'")
        }
    }
}

final class AssemblyPlaceholderTests: XCTestCase {
    func testTransloaditPlaceholdersAreKeptForTheService() {
        XCTAssertEqual(Interpolation.expand("${file.size} < ${fields.max_size}", environment: [:]), .text("${file.size} < ${fields.max_size}"))
        XCTAssertEqual(Interpolation.expand("${file.meta.width}-${W}", environment: ["W": "3"]), .text("${file.meta.width}-3"))
        XCTAssertEqual(Interpolation.expand("${.x}", environment: [:]), .text("${.x}"), "not a variable name: an expression for the service")
    }
}
