/// `--color auto|always|never`, which every command takes: automatic colours only on a terminal,
/// and never with `NO_COLOR` set or `TERM=dumb`; `always` and `never` are what they say.
enum TerminalColors {
    static let choices = ["auto", "always", "never"]

    /// Removes `--color VALUE` or `--color=VALUE` (before any `--`) and returns the choice.
    static func take(from arguments: inout [String]) -> Result<String, UsageError> {
        var choice = "auto"
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            if argument == "--color" {
                guard index + 1 < arguments.count else { return .failure(UsageError("--color needs auto, always or never", command: nil)) }
                choice = arguments[index + 1]
                arguments.removeSubrange(index...(index + 1))
            } else if argument.hasPrefix("--color=") {
                choice = String(argument.dropFirst("--color=".count))
                arguments.remove(at: index)
            } else {
                index += 1
                continue
            }
            guard choices.contains(choice) else { return .failure(UsageError("--color must be auto, always or never, not '\(choice)'", command: nil)) }
        }
        return .success(choice)
    }

    /// Whether a stream gets colours.
    static func enabled(_ choice: String, terminal: Bool, environment: [String: String]) -> Bool {
        switch choice {
        case "always": true
        case "never": false
        default: terminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }
}
