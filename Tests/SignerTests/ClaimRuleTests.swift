import Basics
@testable import Signer
import XCTest

/// Claim rules: exact values, `*` patterns, alternatives, and claims that are not strings.
final class ClaimRuleTests: XCTestCase {
    func testPatternsAndAlternatives() {
        let rule = ClaimRule(alternatives: ["refs/heads/main", "refs/tags/v*"])
        XCTAssertTrue(rule.matches(.string("refs/heads/main")))
        XCTAssertTrue(rule.matches(.string("refs/tags/v1.0")))
        XCTAssertTrue(rule.matches(.string("refs/tags/v")), "'*' matches nothing too")
        XCTAssertFalse(rule.matches(.string("refs/heads/main2")))
        XCTAssertFalse(rule.matches(.string("xrefs/tags/v1")))
        XCTAssertFalse(rule.matches(nil), "an absent claim matches nothing")
        for (text, pattern, expected) in [("abc", "a*c", true), ("ac", "a*c", true), ("a", "a*a", false), ("aXbYc", "a*b*c", true),
                                          ("abcb", "a*b", true), ("", "*", true), ("x", "*x*", true), ("repo:acme/site:ref:x", "repo:acme/*:ref:*", true)] {
            XCTAssertEqual(ClaimRule.match(text, pattern: pattern), expected, "\(text) ~ \(pattern)")
        }
    }

    func testBooleansNumbersAndListClaims() {
        XCTAssertTrue(ClaimRule(alternatives: ["true"]).matches(.bool(true)))
        XCTAssertTrue(ClaimRule(alternatives: ["true"]).matches(.string("true")))
        XCTAssertFalse(ClaimRule(alternatives: ["true"]).matches(.bool(false)))
        XCTAssertTrue(ClaimRule(alternatives: ["42"]).matches(.int(42)))
        XCTAssertTrue(ClaimRule(alternatives: ["42"]).matches(.double(42)))
        let groups = JSONValue.array([.string("users"), .string("admins")])
        XCTAssertFalse(ClaimRule(alternatives: ["admins"]).matches(groups), "a plain rule never matches a list")
        XCTAssertTrue(ClaimRule(alternatives: ["admins"], matchesItems: true).matches(groups), "{contains: admins}")
        XCTAssertFalse(ClaimRule(alternatives: ["root"], matchesItems: true).matches(groups))
        XCTAssertFalse(ClaimRule(alternatives: ["admins"], matchesItems: true).matches(.string("admins")), "{contains: …} asks for a list")
        XCTAssertFalse(ClaimRule(alternatives: ["*"]).matches(.object([:])), "an object is no value to match")
    }
}
