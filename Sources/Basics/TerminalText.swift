/// Text from a server or a file made safe to print: a message may not move the cursor, recolour
/// the terminal, set its title, break into several lines or be taken by a CI runner as one of its
/// commands (GitHub Actions' `::command::` at a line's start and `##[command]` anywhere, Azure
/// Pipelines' `##vso[`).
public enum TerminalText {
    /// `text` with line breaks (Unicode's line and paragraph separators included) and tabs as
    /// spaces, every other control character (bidirectional overrides included) as U+FFFD, and a
    /// word joiner (U+2060, invisible) that splits a workflow command's marker: between the two
    /// colons that start it (after blanks), and after `##` before `[` or `v`.
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) || text.contains("::") || text.contains("##") else { return text }
        var result = String.UnicodeScalarView()
        var start = LineStart.blank
        for scalar in text.unicodeScalars {
            let shown: Unicode.Scalar
            switch scalar {
            case "\n", "\r", "\t", "\u{2028}", "\u{2029}": shown = " "
            case _ where isControl(scalar): shown = "\u{FFFD}"
            default: shown = scalar
            }
            let splitsColons = start == .oneColon && shown == ":"
            let splitsHashes = (shown == "[" || shown == "v") && result.last == "#" && result.dropLast().last == "#"
            if splitsColons || splitsHashes { result.append(wordJoiner) }
            result.append(shown)
            start = start.after(shown)
        }
        return String(result)
    }

    /// U+2060: joins what it splits on screen, but no runner reads a command through it.
    static let wordJoiner: Unicode.Scalar = "\u{2060}"

    /// How far a text's start looks like a workflow command's `::`.
    private enum LineStart {
        case blank, oneColon, other

        func after(_ scalar: Unicode.Scalar) -> LineStart {
            switch self {
            case .blank: scalar.properties.isWhitespace ? .blank : (scalar == ":" ? .oneColon : .other)
            case .oneColon, .other: .other
            }
        }
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
