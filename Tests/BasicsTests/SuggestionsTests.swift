import Basics
import XCTest

final class SuggestionsTests: XCTestCase {
    func testEditDistance() {
        let cases: [(String, String, Int)] = [
            ("kitten", "sitting", 3),
            ("", "abc", 3),
            ("abc", "", 3),
            ("", "", 0),
            ("same", "same", 0),
            ("flaw", "lawn", 2),
            ("widht", "width", 1),
            ("ab", "ba", 1),
            ("é", "e", 1),
            ("日本", "日本語", 1),
        ]
        for (lhs, rhs, distance) in cases {
            XCTAssertEqual(Suggestions.editDistance(lhs, rhs), distance, "\(lhs) -> \(rhs)")
            XCTAssertEqual(Suggestions.editDistance(rhs, lhs), distance, "\(rhs) -> \(lhs)")
        }
    }

    func testClosest() {
        XCTAssertEqual(Suggestions.closest(to: "widht", in: ["height", "width"]), "width")
        XCTAssertEqual(Suggestions.closest(to: "WIDTH", in: ["width"]), "width")
        XCTAssertEqual(Suggestions.closest(to: "resize_strategi", in: ["resize_strategy", "result"]), "resize_strategy")
        XCTAssertNil(Suggestions.closest(to: "xyz", in: ["width", "height"]))
        XCTAssertNil(Suggestions.closest(to: "anything", in: [String]()))
    }

    func testEquallyCloseCandidatesResolveAlphabeticallyWhateverTheOrder() {
        XCTAssertEqual(Suggestions.closest(to: "cat", in: ["bat", "cot"]), "bat")
        XCTAssertEqual(Suggestions.closest(to: "cat", in: ["cot", "bat"]), "bat")
        XCTAssertEqual(Suggestions.closest(to: "cat", in: ["bats", "cot"]), "cot")
    }

    func testDistanceLimitGrowsWithTheWord() {
        // 12 characters: up to 4 edits are accepted.
        XCTAssertEqual(Suggestions.closest(to: "abcdefghijkl", in: ["abcdefghWXYZ"]), "abcdefghWXYZ")
        XCTAssertNil(Suggestions.closest(to: "abcdefghijkl", in: ["abcdefgVWXYZ"]))
    }

    func testHint() {
        XCTAssertEqual(Suggestions.hint(for: "nmae", in: ["name", "version"]), "did you mean 'name'?")
        XCTAssertEqual(Suggestions.hint(for: "zzzzzz", in: ["version", "name"]), "valid keys: name, version")
        XCTAssertEqual(
            Suggestions.hint(for: "/image/zzzzzzzz", in: ["/video/encode", "/image/resize"], kind: "robots"),
            "valid robots: /image/resize, /video/encode")
    }
}
