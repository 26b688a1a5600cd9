/// Renders diagnostics for people (compiler style) and for CI annotations.
public struct DiagnosticRenderer: Sendable {
    /// The source text lines are taken from.
    public var sources: SourceStore
    /// Whether to add GitHub Actions `::error` workflow commands.
    public var githubActions: Bool
    /// The colours for a terminal (none by default).
    public var palette: Palette

    /// Creates a renderer.
    public init(sources: SourceStore, githubActions: Bool = false, palette: Palette = .plain) {
        self.sources = sources
        self.githubActions = githubActions
        self.palette = palette
    }

    /// The most diagnostics shown in full; the rest are counted (`--json` lists them all).
    public static let shownLimit = 50
    /// The most characters of a source line shown around the column.
    public static let excerptWidth = 200

    /// The first `limit` diagnostics, sorted by location, then how many more there are and a count line.
    public func render(_ diagnostics: [Diagnostic], limit: Int = shownLimit) -> String {
        var output = ""
        let sorted = diagnostics.sortedByLocation()
        for diagnostic in sorted.prefix(limit) {
            output += render(diagnostic)
        }
        if sorted.count > limit {
            output += "... and \(sorted.count - limit) more not shown (--json lists every one)\n"
        }
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        if errors + warnings > 0 {
            output += Self.count(errors: errors, warnings: warnings) + "\n"
        }
        return output
    }

    /// "2 errors, 1 warning" style summary.
    public static func count(errors: Int, warnings: Int) -> String {
        var parts: [String] = []
        if errors > 0 { parts.append(plural(errors, "error")) }
        if warnings > 0 { parts.append(plural(warnings, "warning")) }
        return parts.joined(separator: ", ")
    }

    /// One diagnostic: header, source excerpt with caret, notes and hint.
    public func render(_ diagnostic: Diagnostic) -> String {
        var output = ""
        let prefix = diagnostic.location.map { palette.bold("\($0):") + " " } ?? "pipeline: "
        let severity = diagnostic.severity == .error ? palette.error(diagnostic.severity.rawValue + ":")
            : diagnostic.severity == .warning ? palette.warning(diagnostic.severity.rawValue + ":") : palette.hint(diagnostic.severity.rawValue + ":")
        // A message may quote a server or a state file: no part of it moves the cursor or starts a line.
        output += "\(prefix)\(severity) \(diagnostic.message.printable) \(palette.dim("[\(diagnostic.id)]"))\n"
        if let location = diagnostic.location, diagnostic.quotesSource {
            output += excerpt(at: location)
        }
        for note in diagnostic.notes {
            let notePrefix = note.location.map { "\($0): " } ?? ""
            output += "  \(notePrefix)\(palette.hint("note:")) \(note.message.printable)\n"
        }
        if let hint = diagnostic.hint {
            output += "  \(palette.hint("hint:")) \(hint.printable)\n"
        }
        if githubActions {
            output += workflowCommand(for: diagnostic) + "\n"
        }
        return output
    }

    private func excerpt(at location: SourceLocation) -> String {
        guard let fullLine = sources.line(location.line, in: location.file) else { return "" }
        let gutter = String(location.line)
        let padding = String(repeating: " ", count: gutter.count)
        // A long line is shown as a window around the column, marked with ellipses.
        let column = max(0, location.column - 1)
        let start = max(0, min(column - Self.excerptWidth / 2, fullLine.count - Self.excerptWidth))
        let window = fullLine.dropFirst(start).prefix(Self.excerptWidth)
        let before = start > 0 ? "…" : ""
        let after = start + window.count < fullLine.count ? "…" : ""
        // Keep tabs in the caret line so the caret lines up under the same character.
        let leading = before.map { _ in " " }.joined() + window.prefix(column - start).map { $0 == "\t" ? "\t" : " " }.joined()
        // The file's own bytes, but no escape sequence or other control reaches the terminal (tabs stay, for the caret).
        let shown = window.split(separator: "\t", omittingEmptySubsequences: false).map { TerminalText.printable(String($0)) }.joined(separator: "\t")
        return " \(palette.dim(gutter + " |")) \(before)\(shown)\(after)\n \(palette.dim(padding + " |")) \(leading)\(palette.added("^"))\n"
    }

    /// A GitHub Actions workflow command (`::error file=...,line=...,col=...::message`).
    public func workflowCommand(for diagnostic: Diagnostic) -> String {
        let command = diagnostic.severity == .error ? "error" : (diagnostic.severity == .warning ? "warning" : "notice")
        var properties: [String] = []
        if let location = diagnostic.location {
            properties = [
                "file=\(Self.escapeProperty(location.file))", "line=\(location.line)", "col=\(location.column)",
            ]
        }
        var message = diagnostic.message
        if let hint = diagnostic.hint { message += " (hint: \(hint))" }
        let head = properties.isEmpty ? "::\(command)" : "::\(command) " + properties.joined(separator: ",")
        return "\(head)::\(Self.workflowData(message))"
    }

    /// Text as a workflow command's message: per Unicode scalar (a `\r\n` is one `Character`),
    /// `%`, CR and LF percent-encoded as the runner decodes them, any other control character or
    /// line separator shown as `TerminalText.printable` shows it; so no value ends the command or
    /// starts another.
    public static func workflowData(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return TerminalText.printable(escaped)
    }

    private static func escapeProperty(_ text: String) -> String {
        var escaped = ""
        for scalar in workflowData(text).unicodeScalars {
            switch scalar {
            case ":": escaped += "%3A"
            case ",": escaped += "%2C"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

/// "1 file", "3 files".
public func plural(_ count: Int, _ noun: String, _ pluralNoun: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : (pluralNoun ?? noun + "s"))"
}
