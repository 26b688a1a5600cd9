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
}
