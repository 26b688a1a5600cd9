import Basics

/// The one way text goes into YAML this project writes (a suggested policy, `init`'s files, a
/// pulled Template): every string is emitted here as a scalar or a comment, never spliced raw, so
/// no name or value can end a line, open a mapping or change what the file says.
public enum YAMLText {
    /// `text` as a scalar that reads back as exactly `text`: plain when no YAML reader (1.1 or
    /// 1.2) could take it for anything else, else double-quoted with escapes.
    public static func scalar(_ text: String) -> String {
        isPlainSafe(text) ? text : quoted(text)
    }

    /// `text` double-quoted: `"` and `\` escaped, and every control, line break, non-ASCII space,
    /// format character and non-character as an escape, so the scalar is one line of printable text;
    /// a `#` right after a `#` is `\x23`, so no CI runner reads `##[` or `##vso[` as a command.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        var previous: Unicode.Scalar = "\0"
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            // CI runners take `##[` and `##vso[` anywhere in a line as a command; `\x23` reads as '#'.
            case "#" where previous == "#": result += "\\x23"
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where needsEscape(scalar): result += escape(scalar)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A comment of one line (`# text`): line breaks, controls and format characters in `text`
    /// are written as `\uXXXX`, so nothing after them can become YAML (nor a `#` after a `#`, a CI command).
    public static func comment(_ text: String) -> String {
        var result = "# "
        var previous: Unicode.Scalar = "\0"
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) || (scalar == "#" && previous == "#") { result += escape(scalar) } else { result.unicodeScalars.append(scalar) }
            previous = scalar
        }
        return result
    }

    /// A flow sequence of scalars: `[a, "b c"]`.
    public static func flowSequence(_ items: [String]) -> String {
        "[" + items.map(scalar).joined(separator: ", ") + "]"
    }

    /// A JSON value as YAML flow (JSON is YAML 1.2): its serialization with the characters YAML
    /// reads as line breaks or refuses (U+2028, U+2029, U+FEFF, non-characters) escaped too.
    public static func json(_ value: JSONValue) -> String {
        var result = ""
        for scalar in value.serialized().unicodeScalars {
            if needsEscape(scalar) { result += escape(scalar) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// Plain only for ASCII letters, digits and `/_.-`, not starting with `-`, and only when it
    /// cannot resolve to a null, boolean or number under the 1.2 core schema or YAML 1.1.
    static func isPlainSafe(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first != "-",
              text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/_.-".unicodeScalars.contains($0)) }),
              Scalar.resolvePlain(text) == .string(text),
              !yaml11Words.contains(text.lowercased())
        else { return false }
        // Starting with a digit or '.', YAML 1.1 reads more as numbers and dates (1_000, 0b1,
        // 0x1_F, 2001-12-14): plain only with a letter no number form has (past 'f', not 'o' or 'x').
        guard ("0"..."9").contains(first) || first == "." else { return true }
        return text.lowercased().unicodeScalars.contains { ("g"..."z").contains($0) && $0 != "o" && $0 != "x" }
    }

    /// Words YAML 1.1 resolves to booleans or null (compared lowercased).
    private static let yaml11Words: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf"]

    /// Characters a one-line double-quoted scalar or comment must not hold as they are: C0 and
    /// C1 controls, DEL, line and paragraph separators, non-ASCII spaces, bidirectional and other
    /// format characters, the byte-order mark and non-characters.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0xA0).contains(value) || value == 0xFFFE || value == 0xFFFF { return true }
        guard value > 0x7F else { return false }
        switch scalar.properties.generalCategory {
        case .lineSeparator, .paragraphSeparator, .spaceSeparator, .format, .control, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

    /// `\uXXXX` (`\UXXXXXXXX` above the Basic Multilingual Plane), which both YAML and JSON read.
    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return scalar.value > 0xFFFF ? "\\U" + String(repeating: "0", count: 8 - hex.count) + hex : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
