import Basics

/// `pipeline policy`'s command line, parsed once.
struct PolicyArguments: CommandArguments {
    /// The manifest to suggest a policy for (after the action, `suggest`).
    var manifest: String
    /// `--out`: a new file for the policy.
    var out: String?
    /// `--margin`: the headroom over what the manifest uses.
    var margin: SuggestionMargin

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard arguments.positionals.first == "suggest" else {
            throw UsageError("unknown action '\(arguments.positionals.first ?? "")'; the action is 'suggest'", command: PolicyCommand.spec.name)
        }
        manifest = arguments.positionals[1]
        out = arguments.value("out")
        if let text = arguments.value("margin") {
            guard let margin = SuggestionMargin(parsing: text) else {
                throw UsageError("--margin must be a factor from 1x to 1000x, such as 4x, not '\(text)'", command: PolicyCommand.spec.name)
            }
            self.margin = margin
        } else {
            margin = .standard
        }
    }
}
