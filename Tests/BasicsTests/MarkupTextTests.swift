import Basics
import XCTest

/// Text from names, servers and state placed into HTML and Markdown, escaped per scalar.
final class MarkupTextTests: XCTestCase {
    /// A combining mark makes `"` and the mark one `Character`; the `"` is still escaped.
    func testHTMLEscapesACharacterFollowedByACombiningMark() {
        let name = "x\"\u{301} autofocus onfocus=alert(1) '\u{301}<\u{301}&\u{301}"
        let escaped = MarkupText.html(name)
        XCTAssertFalse(escaped.unicodeScalars.contains { "\"'<>".unicodeScalars.contains($0) }, escaped)
        XCTAssertEqual(escaped, "x&quot;\u{301} autofocus onfocus=alert(1) &#39;\u{301}&lt;\u{301}&amp;\u{301}")
        XCTAssertEqual(MarkupText.html("line\none\u{1B}[2J"), "line one\u{FFFD}[2J")
    }

    func testMarkdownEscapesEveryScalarThatCouldBecomeMarkup() {
        XCTAssertEqual(MarkupText.markdown("a|\u{301}b"), "a\\|\u{301}b", "a combining mark cannot hide a cell separator")
        XCTAssertEqual(MarkupText.markdown("*\u{301}bold*\u{301}"), "\\*\u{301}bold\\*\u{301}")
        XCTAssertEqual(MarkupText.markdown("@\u{301}team"), "@\u{2060}\u{301}team", "no mention")
        XCTAssertEqual(MarkupText.markdown("see #12"), "see \\#\u{2060}12")
        XCTAssertEqual(MarkupText.markdown("https://evil.example/x"), "https:\u{2060}//evil.example/x", "no bare link")
        XCTAssertEqual(MarkupText.markdown("see www.evil.example"), "see www\u{2060}.evil.example", "no www link")
        XCTAssertEqual(MarkupText.markdown("- item"), "\\- item", "no list")
        XCTAssertEqual(MarkupText.markdown("12. item"), "12\\. item", "no ordered list")
        XCTAssertEqual(MarkupText.markdown("re-processes 3 files (1.5 MB)"), "re-processes 3 files (1.5 MB)", "plain text stays plain")
        XCTAssertEqual(MarkupText.markdown("a\nb"), "a b", "no value starts a line")
    }

    func testCodeSpansAreFencedLongerThanAnyRunInside() {
        XCTAssertEqual(MarkupText.codeSpan("plain.txt"), "`plain.txt`")
        XCTAssertEqual(MarkupText.codeSpan("a`b"), "`` a`b ``")
        XCTAssertEqual(MarkupText.codeSpan("a``b```c"), "```` a``b```c ````")
        XCTAssertEqual(MarkupText.codeSpan("`\u{301}"), "`` `\u{301} ``", "a backtick with a mark still counts")
        XCTAssertEqual(MarkupText.codeSpan("a|\u{301}b", inTable: true), "`a\\|\u{301}b`")
    }

    func testCodeBlocksCannotBeClosedFromInside() {
        let block = MarkupText.codeBlock("one\n````\ntwo")
        XCTAssertEqual(block, "`````\none\n````\ntwo\n`````\n")
        XCTAssertEqual(MarkupText.codeBlock("x\n"), "```\nx\n```\n")
    }

    func testLineAndParagraphSeparatorsCannotStartALine() {
        XCTAssertEqual(TerminalText.printable("a\u{2028}::error::x\u{2029}b\u{85}"), "a ::error::x b\u{FFFD}")
    }
}
