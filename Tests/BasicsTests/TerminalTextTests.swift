import Basics
import XCTest

/// Text from servers and files cannot steer the terminal.
final class TerminalTextTests: XCTestCase {
    func testControlsAndBidiOverridesAreReplaced() {
        XCTAssertEqual(TerminalText.printable("ok\u{1B}[2J\u{7}\u{9B}x"), "ok\u{FFFD}[2J\u{FFFD}\u{FFFD}x")
        XCTAssertEqual(TerminalText.printable("a\u{202E}txt.exe\u{2066}b\u{200F}"), "a\u{FFFD}txt.exe\u{FFFD}b\u{FFFD}")
        XCTAssertEqual(TerminalText.printable("two\nlines\tand tab"), "two lines and tab")
        XCTAssertEqual("plain ünïcode ✓".printable, "plain ünïcode ✓")
    }

    /// A name or URL that would start a CI runner's command is split by an invisible word joiner:
    /// `::` at its start (after blanks) for GitHub Actions, `##[` and `##vso[` anywhere.
    func testWorkflowCommandMarkersAreSplit() {
        let joiner = "\u{2060}"
        XCTAssertEqual(TerminalText.printable("::warning title=x::PLANTED.png"), ":\(joiner):warning title=x::PLANTED.png")
        XCTAssertEqual(TerminalText.printable("  \t::add-mask::x"), "   :\(joiner):add-mask::x")
        XCTAssertEqual(TerminalText.printable("\n::error::x"), " :\(joiner):error::x", "a line break before it is a blank")
        XCTAssertEqual(TerminalText.printable("a ##[add-mask]x ##vso[task.setvariable]y"), "a ##\(joiner)[add-mask]x ##\(joiner)vso[task.setvariable]y")
        XCTAssertEqual(TerminalText.printable("http://[::1]:8080/a::b"), "http://[::1]:8080/a::b", "not at the start: left alone")
        XCTAssertEqual(TerminalText.printable("img/a::b.png"), "img/a::b.png")
        XCTAssertEqual(TerminalText.printable(": :x"), ": :x")
    }
}
