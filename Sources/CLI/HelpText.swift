/// Renders `--help` for the tool and for each command, in lines of at most 80 columns.
enum HelpText {
    /// The widest line help text writes.
    static let width = 80

    static func command(_ spec: CommandSpec) -> String {
        var text = "\(wrap(spec.summary, width: width))\n\nUsage: \(spec.usage)\n"
        if let discussion = spec.discussion { text += "\n" + wrap(discussion, width: width) + "\n" }
        if !spec.arguments.isEmpty {
            text += "\nArguments:\n"
            text += table(spec.arguments.map { argument in
                (argument.name, argument.name == ParsedArguments.manifestArgument && !argument.help.contains("Default:") ? argument.help + " " + Self.manifestDefault : argument.help)
            })
        }
        text += "\nOptions:\n"
        text += table(spec.allOptions.map { option in
            let left = (option.short.map { "-\($0), " } ?? "") + "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
            return (left, option.help + (option.repeatable ? " (repeatable)" : ""))
        })
        if !spec.examples.isEmpty {
            text += "\nExamples:\n" + spec.examples.map { "  \(commandLine($0))\n" }.joined()
        }
        return text
    }

    /// How a command finds its manifest when none is named.
    static let manifestDefault = "Default: pipeline.yml in this folder, else in the nearest parent folder up to the repository's root; a folder means its pipeline.yml."

    static func tool(_ commands: [CommandSpec]) -> String {
        var text = """
        pipeline: a declarative file-processing runner for Transloadit-compatible
        Assembly APIs.

        Usage: pipeline <command> [arguments] [options]

        Commands:

        """
        text += table(commands.map { ($0.name, $0.summary) })
        text += "\nGlobal options:\n"
        text += table([
            ("--help", "Show help (also 'pipeline help <command>'; 'pipeline help --man' prints the manual page)."),
            ("--version", "Print the version."),
            ("--color WHEN", "auto (default: on a terminal, unless NO_COLOR is set or TERM=dumb), always or never."),
        ])
        text += """

        Exit codes: 0 success, 1 the work failed (invalid manifest, policy violation),
        2 'diff --exit-code' found changes, 64 usage error, 130 'run' interrupted
        (state is saved).

        """
        return text
    }

    /// An example command, broken with shell continuations ("\\") where it is wider than the help.
    static func commandLine(_ command: String) -> String {
        // Continued lines are indented 6 more than the first, and end in " \\".
        wrap(command, width: width - 2 - 6 - 2).replacingOccurrences(of: "\n", with: " \\\n        ")
    }

    /// Breaks text into lines of at most `width` characters at spaces.
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// Two columns, the right one wrapped under itself.
    private static func table(_ rows: [(String, String)]) -> String {
        let column = min(28, (rows.map(\.0.count).max() ?? 0) + 2)
        let indent = String(repeating: " ", count: column + 2)
        return rows.map { left, right in
            let padding = left.count < column ? String(repeating: " ", count: column - left.count) : "\n" + indent
            let wrapped = wrap(right, width: width - column - 2).replacingOccurrences(of: "\n", with: "\n" + indent)
            return "  \(left)\(padding)\(wrapped)\n"
        }.joined()
    }
}
