/// Text from names, servers and state placed into HTML or Markdown. Every function works per Unicode
/// scalar, never per `Character`: a `"` or `|` followed by a combining mark is one `Character` but
/// still two scalars, and a browser or Markdown parser sees the `"` or `|`. Control characters are
/// shown as `TerminalText.printable` shows them, so no value starts a line of its own.
public enum MarkupText {
    /// Text safe in HTML content and in a quoted attribute value.
    public static func html(_ text: String) -> String {
        var escaped = ""
        for scalar in TerminalText.printable(text).unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Text shown as it is in Markdown, in running text and in a table cell: every ASCII punctuation
    /// character that could start emphasis, a link, HTML, math or a cell is backslash-escaped, so is
    /// one that would make the text a list item, heading or rule, and an `@`, `#`, `://` or `www.`
    /// is kept from joining what follows into a mention, an issue link or a link.
    public static func markdown(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        let scalars = Array(TerminalText.printable(text).unicodeScalars)
        // "1. x" or "1) x" would start an ordered list: the punctuation after leading digits is escaped.
        let digits = scalars.prefix { ("0"..."9").contains($0) }.count
        for (index, scalar) in scalars.enumerated() {
            let startsBlock = (index == 0 && "-+=".unicodeScalars.contains(scalar)) || (index == digits && digits > 0 && (scalar == "." || scalar == ")"))
            if startsBlock || markdownSpecial.contains(scalar) { escaped.append("\\") }
            escaped.append(scalar)
            // GitHub links `@name`, `#12`, bare `https://…` and `www.…` in text whatever escapes
            // precede them; a word joiner (invisible) after the sign, the scheme's colon or the
            // `www` keeps them text.
            let startsLink = scalar == ":" && scalars.dropFirst(index + 1).prefix(2).elementsEqual("//".unicodeScalars)
                || scalar == "w" && index >= 2 && String(String.UnicodeScalarView(scalars[(index - 2)...index])).lowercased() == "www"
                    && scalars.dropFirst(index + 1).first == "."
            if scalar == "@" || scalar == "#" || startsLink { escaped.append(wordJoiner) }
        }
        return String(escaped)
    }

    /// Text in a Markdown code span that shows it as it is, whatever backticks it holds: the fence is
    /// one backtick longer than the longest run inside (CommonMark). In a table, `|` is escaped too,
    /// since GitHub splits a row into cells before it reads code spans.
    public static func codeSpan(_ text: String, inTable: Bool = false) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in TerminalText.printable(text).unicodeScalars {
            if inTable, scalar == "|" { shown.append("\\") }
            shown.append(scalar)
        }
        let fence = String(repeating: "`", count: longestBacktickRun(shown) + 1)
        // A span that starts or ends with a backtick (or holds one) is padded: the padding is removed again.
        let padding = shown.contains("`") ? " " : ""
        return fence + padding + String(shown) + padding + fence
    }

    /// Lines of text in a fenced Markdown code block that no line inside can close.
    public static func codeBlock(_ text: String) -> String {
        let body = text.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.printable(String($0)) }.joined(separator: "\n")
        let fence = String(repeating: "`", count: max(3, longestBacktickRun(text.unicodeScalars) + 1))
        return fence + "\n" + body + (body.hasSuffix("\n") || body.isEmpty ? "" : "\n") + fence + "\n"
    }

    private static let wordJoiner: Unicode.Scalar = "\u{2060}"
    private static let markdownSpecial = Set("\\`*_[]<>|#~&$".unicodeScalars)

    private static func longestBacktickRun(_ scalars: String.UnicodeScalarView) -> Int {
        var longest = 0
        var run = 0
        for scalar in scalars {
            run = scalar == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }
}
