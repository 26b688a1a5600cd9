@testable import Planning
import XCTest

final class GlobPatternTests: XCTestCase {
    func testExpandBraces() throws {
        let cases: [(String, [String], UInt)] = [
            ("abc", ["abc"], #line),
            ("{a,b}", ["a", "b"], #line),
            ("x{a,b}y", ["xay", "xby"], #line),
            ("*.{jpg,jpeg,png}", ["*.jpg", "*.jpeg", "*.png"], #line),
            ("a{b,c{d,e}}f", ["abf", "acdf", "acef"], #line),
            ("{a,b}{c,d}", ["ac", "ad", "bc", "bd"], #line),
            ("{a}", ["a"], #line),
            ("{,a}", ["", "a"], #line),
            ("img/{x,y}/**", ["img/x/**", "img/y/**"], #line),
            // A backslash keeps a brace or comma literal; the backslash stays for the next layer.
            (#"\{a,b\}"#, [#"\{a,b\}"#], #line),
            (#"{a\,b,c}"#, [#"a\,b"#, "c"], #line),
            (#"{a,b\}}"#, ["a", #"b\}"#], #line),
        ]
        for (pattern, expected, line) in cases {
            XCTAssertEqual(try GlobPattern.expandBraces(pattern), expected, pattern, line: line)
        }
    }

    func testUnmatchedBraces() {
        let cases: [(String, GlobPattern.Problem, UInt)] = [
            ("a}", GlobPattern.Problem(message: "unmatched '}' in pattern 'a}'", hint: #"escape a literal brace as '\}'"#), #line),
            ("}{a,b}", GlobPattern.Problem(message: "unmatched '}' in pattern '}{a,b}'", hint: #"escape a literal brace as '\}'"#), #line),
            ("{a,b", GlobPattern.Problem(message: "unmatched '{' in pattern '{a,b'", hint: #"close it with '}' or escape it as '\{'"#), #line),
            ("{a,{b}", GlobPattern.Problem(message: "unmatched '{' in pattern '{a,{b}'", hint: #"close it with '}' or escape it as '\{'"#), #line),
        ]
        for (pattern, problem, line) in cases {
            XCTAssertThrowsError(try GlobPattern.expandBraces(pattern), pattern, line: line) { error in
                XCTAssertEqual(error as? GlobPattern.Problem, problem, line: line)
            }
        }
    }

    /// The message must name the pattern the user wrote, not a partial expansion of it
    /// (today `{a,b}}` reports "unmatched '}' in pattern 'a}'").
    func testUnmatchedBraceAfterAGroupNamesTheWholePattern() {
        for pattern in ["{a,b}}", "{a,b}{"] {
            XCTAssertThrowsError(try GlobPattern(pattern), pattern) { error in
                let message = (error as? GlobPattern.Problem)?.message ?? ""
                XCTAssertTrue(message.contains("'\(pattern)'"), message)
            }
        }
    }

    func testAlternativeLimit() throws {
        let ten = String(repeating: "{a,b}", count: 10)
        XCTAssertEqual(try GlobPattern.expandBraces(ten).count, 1024)
        XCTAssertEqual(try GlobPattern(ten).alternatives.count, GlobPattern.maxAlternatives)

        let eleven = String(repeating: "{a,b}", count: 11)
        XCTAssertThrowsError(try GlobPattern(eleven)) { error in
            XCTAssertEqual(error as? GlobPattern.Problem, GlobPattern.Problem(
                message: "pattern '\(eleven)' expands to more than 1024 alternatives", hint: "use fewer '{a,b}' groups"))
        }
    }

    func testSegments() throws {
        let cases: [(String, [[GlobPattern.Segment]], UInt)] = [
            ("images/*.jpg", [[.literal("images"), .wildcard("*.jpg")]], #line),
            ("a/b.txt", [[.literal("a"), .literal("b.txt")]], #line),
            ("./a//b/./c", [[.literal("a"), .literal("b"), .literal("c")]], #line),
            ("a/**/**/b", [[.literal("a"), .globstar, .literal("b")]], #line),
            ("**/**", [[.globstar, .wildcard("*")]], #line),
            ("a/**", [[.literal("a"), .globstar, .wildcard("*")]], #line),
            ("**/x?.[ch]", [[.globstar, .wildcard("x?.[ch]")]], #line),
            ("{a,b}/*.txt", [[.literal("a"), .wildcard("*.txt")], [.literal("b"), .wildcard("*.txt")]], #line),
            ("../../x/*.txt", [[.literal(".."), .literal(".."), .literal("x"), .wildcard("*.txt")]], #line),
            (#"a\{b\}.txt"#, [[.literal("a{b}.txt")]], #line),
            (#"a\,b"#, [[.literal("a,b")]], #line),
            (#"a\*b"#, [[.wildcard(#"a\*b"#)]], #line),
            ("/abs/*.txt", [[.literal("abs"), .wildcard("*.txt")]], #line),
        ]
        for (source, expected, line) in cases {
            let pattern = try GlobPattern(source)
            XCTAssertEqual(pattern.alternatives, expected, source, line: line)
            XCTAssertEqual(pattern.source, source, line: line)
        }
    }

    func testAbsoluteAndEscapingPatterns() throws {
        let cases: [(String, Bool, Bool, UInt)] = [
            ("images/*.png", false, false, #line),
            ("/srv/images/*.png", true, true, #line),
            ("../shared/*.png", false, true, #line),
            ("{images,../shared}/*.png", false, true, #line),
            ("..foo/*.png", false, false, #line),
        ]
        for (source, absolute, escapes, line) in cases {
            let pattern = try GlobPattern(source)
            XCTAssertEqual(pattern.isAbsolute, absolute, source, line: line)
            XCTAssertEqual(pattern.escapesBase, escapes, source, line: line)
        }
    }

    func testDotDotOnlyAtTheStart() {
        for source in ["a/../b", "a/*/../b", "**/../x"] {
            XCTAssertThrowsError(try GlobPattern(source), source) { error in
                XCTAssertEqual(error as? GlobPattern.Problem, GlobPattern.Problem(
                    message: "'..' in pattern '\(source)' may only appear at its start",
                    hint: "write the folder part first, such as '../shared/*.png'"))
            }
        }
    }

    /// Once a pattern has started with '..', a later '..' is in its middle and must be refused too.
    func testDotDotAfterAFolderFollowingALeadingDotDot() {
        XCTAssertThrowsError(try GlobPattern("../a/../b"))
    }

    func testPatternsNamingNoFiles() {
        for source in [".", "/", "./", "{.,/}"] {
            XCTAssertThrowsError(try GlobPattern(source), source) { error in
                XCTAssertEqual((error as? GlobPattern.Problem)?.message, "pattern '\(source)' names no files")
            }
        }
    }

    func testMatches() throws {
        let cases: [(String, String, Bool, UInt)] = [
            ("**/*.txt", "a.txt", true, #line),
            ("**/*.txt", "x/y/a.txt", true, #line),
            ("**/*.txt", ".h/a.txt", false, #line),
            ("**/*.txt", "x/.h/a.txt", false, #line),
            ("**/*.txt", ".a.txt", false, #line),
            ("**/*.txt", "a.md", false, #line),
            ("a/**/b.txt", "a/b.txt", true, #line),
            ("a/**/b.txt", "a/x/y/b.txt", true, #line),
            ("a/**/b.txt", "b.txt", false, #line),
            ("a/**", "a/x/y", true, #line),
            ("a/**", "a", false, #line),
            ("**/.h/*.txt", ".h/a.txt", true, #line),
            ("a/.h/*.txt", "a/.h/a.txt", true, #line),
            ("*.txt", "x/a.txt", false, #line),
            ("*", ".env", false, #line),
            (".*", ".env", true, #line),
            ("[ab].txt", "a.txt", true, #line),
            ("[ab].txt", "b.txt", true, #line),
            ("[ab].txt", "c.txt", false, #line),
            ("?.txt", "a.txt", true, #line),
            ("?.txt", "ab.txt", false, #line),
            ("?.txt", ".txt", false, #line),
            ("{a,b}/*.txt", "b/x.txt", true, #line),
            ("{a,b}/*.txt", "c/x.txt", false, #line),
            ("images/_drafts/**", "images/_drafts/x/y.png", true, #line),
            ("images/_drafts/**", "images/x.png", false, #line),
            (#"a\*b"#, "a*b", true, #line),
            (#"a\*b"#, "axb", false, #line),
            ("../x/*.txt", "../x/a.txt", true, #line),
        ]
        for (source, path, expected, line) in cases {
            let pattern = try GlobPattern(source)
            XCTAssertEqual(pattern.matches(path.split(separator: "/")), expected, "\(source) vs \(path)", line: line)
        }
    }

    func testTheSuffixMatcherAnswersAsFnmatchDoes() {
        let patterns = ["*", "*.jpg", "*.JPG", "*jpg", "*.tar.gz", "*é.png", "*.j?g", "*.[jp]ng", "a*.jpg", "*\\*.jpg"]
        let names = ["a.jpg", ".jpg", ".a.jpg", "jpg", "a.JPG", "x.tar.gz", "a.gz", "café.png", "cafe\u{301}.png", "a.png", "a*.jpg", "", "ajpg", "b.jpgx"]
        for pattern in patterns {
            let matcher = GlobPattern.WildcardMatcher(pattern)
            for name in names {
                XCTAssertEqual(matcher.matches(name), GlobPattern.fnmatches(pattern, name), "\(pattern) against '\(name)'")
            }
        }
    }

    func testALiteralNameMatchesItsOwnBytesOnly() throws {
        let composed = "img/Cr\u{E8}me.png", decomposed = "img/Cre\u{300}me.png"
        let pattern = try GlobPattern(composed)
        XCTAssertTrue(pattern.matches(composed.split(separator: "/")))
        XCTAssertFalse(pattern.matches(decomposed.split(separator: "/")), "'!\(composed)' leaves its decomposed twin in")
        XCTAssertNil(pattern.fixedFolders(of: decomposed.split(separator: "/")))
    }

    func testAnEscapedPathMatchesItselfAlone() throws {
        for path in ["img/x[1].jpg", "img/{a,b}.jpg", "img/what?*.jpg", "img/back\\slash.jpg"] {
            let pattern = try GlobPattern(GlobPattern.escaped(path))
            XCTAssertTrue(pattern.matches(path.split(separator: "/")), path)
            XCTAssertFalse(pattern.matches("img/x1.jpg".split(separator: "/")), path)
        }
    }
}
