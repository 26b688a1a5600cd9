import Basics
import Spec
import XCTest

final class OptionConstraintTests: XCTestCase {
    private typealias Case = (constraint: OptionConstraint, value: JSONValue, violation: String?, line: UInt)

    func testTypes() {
        let cases: [Case] = [
            (OptionConstraint(type: .string), .string("fit"), nil, #line),
            (OptionConstraint(type: .string), .int(3), "must be a string, found integer", #line),
            (OptionConstraint(type: .string), .null, "must be a string, found null", #line),
            (OptionConstraint(type: .integer), .int(3), nil, #line),
            (OptionConstraint(type: .integer), .int(-7), nil, #line),
            (OptionConstraint(type: .integer), .double(2.0), nil, #line),
            (OptionConstraint(type: .integer), .double(2.5), "must be an integer, found number", #line),
            (OptionConstraint(type: .integer), .double(1e20), "must be an integer, found number", #line),
            (OptionConstraint(type: .integer), .string("3"), "must be an integer, found string", #line),
            (OptionConstraint(type: .integer), .bool(true), "must be an integer, found boolean", #line),
            (OptionConstraint(type: .number), .int(3), nil, #line),
            (OptionConstraint(type: .number), .double(2.5), nil, #line),
            (OptionConstraint(type: .number), .string("2.5"), "must be a number, found string", #line),
            (OptionConstraint(type: .number), .bool(false), "must be a number, found boolean", #line),
            (OptionConstraint(type: .boolean), .bool(false), nil, #line),
            (OptionConstraint(type: .boolean), .string("true"), "must be a boolean, found string", #line),
            (OptionConstraint(type: .boolean), .int(1), "must be a boolean, found integer", #line),
            (OptionConstraint(type: .array), .array([]), nil, #line),
            (OptionConstraint(type: .array), .object([:]), "must be an array, found object", #line),
            (OptionConstraint(type: .object), .object(["a": .int(1)]), nil, #line),
            (OptionConstraint(type: .object), .array([.int(1)]), "must be an object, found array", #line),
            (OptionConstraint(type: .any), .null, nil, #line),
            (OptionConstraint(type: .any), .string("x"), nil, #line),
            (OptionConstraint(type: .any), .object([:]), nil, #line),
            (OptionConstraint(type: .any), .double(0.5), nil, #line),
        ]
        check(cases)
    }

    func testEnumUsesNumericEquality() {
        let strategies = OptionConstraint(allowedValues: [.string("fit"), .string("crop")])
        let numbers = OptionConstraint(allowedValues: [.int(1), .double(2.5)])
        let cases: [Case] = [
            (strategies, .string("fit"), nil, #line),
            (strategies, .string("crop"), nil, #line),
            (strategies, .string("pad"), #"must be one of "fit", "crop", found "pad""#, #line),
            (strategies, .string("FIT"), #"must be one of "fit", "crop", found "FIT""#, #line),
            (numbers, .int(1), nil, #line),
            (numbers, .double(1.0), nil, #line),
            (numbers, .double(2.5), nil, #line),
            (numbers, .int(2), "must be one of 1, 2.5, found 2", #line),
            (numbers, .string("1"), #"must be one of 1, 2.5, found "1""#, #line),
            (numbers, .bool(true), "must be one of 1, 2.5, found true", #line),
        ]
        check(cases)
    }

    func testMinimumAndMaximum() {
        let range = OptionConstraint(minimum: 1, maximum: 4000)
        let fractional = OptionConstraint(minimum: 0.5, maximum: 99.5)
        let cases: [Case] = [
            (range, .int(1), nil, #line),
            (range, .int(4000), nil, #line),
            (range, .double(4000.0), nil, #line),
            (range, .int(0), "must be at least 1, found 0", #line),
            (range, .int(-3), "must be at least 1, found -3", #line),
            (range, .int(4001), "must be at most 4000, found 4001", #line),
            (range, .double(0.5), "must be at least 1, found 0.5", #line),
            (range, .double(4000.5), "must be at most 4000, found 4000.5", #line),
            // A bound refuses what is not a number, so quoting a value cannot slip past it.
            (range, .string("99999"), "must be a number, found string", #line),
            (fractional, .double(0.25), "must be at least 0.5, found 0.25", #line),
            (fractional, .int(100), "must be at most 99.5, found 100", #line),
            (fractional, .int(50), nil, #line),
        ]
        check(cases)
    }

    func testPatternMustMatchTheWholeString() {
        let lowercase = OptionConstraint(pattern: "[a-z]+")
        let alternation = OptionConstraint(pattern: "jpg|png")
        let cases: [Case] = [
            (lowercase, .string("abc"), nil, #line),
            (lowercase, .string("abc1"), #"must match the pattern [a-z]+, found "abc1""#, #line),
            (lowercase, .string("1abc"), #"must match the pattern [a-z]+, found "1abc""#, #line),
            (lowercase, .string(""), #"must match the pattern [a-z]+, found """#, #line),
            (alternation, .string("jpg"), nil, #line),
            (alternation, .string("png"), nil, #line),
            // Without the group around the pattern, '^jpg|png$' would accept both of these.
            (alternation, .string("jpgx"), #"must match the pattern jpg|png, found "jpgx""#, #line),
            (alternation, .string("xpng"), #"must match the pattern jpg|png, found "xpng""#, #line),
            // A pattern refuses what is not a string.
            (lowercase, .int(5), "must be a string matching [a-z]+, found integer", #line),
        ]
        check(cases)
    }

    /// `$` in ICU also matches before a final line terminator, so an anchored `^(?:...)$`
    /// accepts "abc\n" for `[a-z]+`. The whole string has to match.
    func testPatternRejectsATrailingNewline() {
        let lowercase = OptionConstraint(pattern: "[a-z]+")
        XCTAssertEqual(lowercase.violation(of: .string("abc\n")), #"must match the pattern [a-z]+, found "abc\n""#)
    }

    func testTypeIsCheckedBeforeOtherRules() {
        let width = OptionConstraint(type: .integer, minimum: 1, maximum: 4000)
        XCTAssertEqual(width.violation(of: .string("5000")), "must be an integer, found string")
        XCTAssertEqual(width.violation(of: .int(5000)), "must be at most 4000, found 5000")
        XCTAssertEqual(width.violation(of: .double(2.0)), nil)

        let strategy = OptionConstraint(type: .string, allowedValues: [.string("fit")], pattern: "f.*")
        XCTAssertEqual(strategy.violation(of: .int(1)), "must be a string, found integer")
        XCTAssertEqual(strategy.violation(of: .string("fill")), #"must be one of "fit", found "fill""#)
    }

    func testEmptyConstraintAllowsEverything() {
        let anything = OptionConstraint()
        for value: JSONValue in [.null, .bool(true), .int(-1), .double(1e300), .string(""), .array([.null]), .object(["a": .null])] {
            XCTAssertNil(anything.violation(of: value), "\(value)")
        }
    }

    func testIsValidPattern() {
        XCTAssertTrue(OptionConstraint.isValidPattern("[a-z]+"))
        XCTAssertTrue(OptionConstraint.isValidPattern("jpg|png"))
        XCTAssertFalse(OptionConstraint.isValidPattern("(unclosed"))
        XCTAssertFalse(OptionConstraint.isValidPattern("[a-z"))
    }

    private func check(_ cases: [Case]) {
        for item in cases {
            XCTAssertEqual(item.constraint.violation(of: item.value), item.violation, "value \(item.value)", line: item.line)
        }
    }
}
