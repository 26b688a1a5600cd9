/// Text from a server or a file made safe to print: a message may not move the cursor, recolour
/// the terminal, set its title or break into several lines.
public enum TerminalText {
    /// `text` with line breaks (Unicode's line and paragraph separators included) and tabs as
    /// spaces and every other control character (bidirectional
    /// overrides included) as U+FFFD.
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t", "\u{2028}", "\u{2029}": result.append(" ")
            case _ where isControl(scalar): result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// C0 and C1 controls, and the bidirectional overrides and isolates that reorder what a line shows.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            || [0x200E, 0x200F, 0x061C, 0x2028, 0x2029].contains(scalar.value)
    }
}

extension StringProtocol {
    /// The text made safe to print (see `TerminalText.printable`): for names and paths read from files.
    public var printable: String { TerminalText.printable(String(self)) }
}
