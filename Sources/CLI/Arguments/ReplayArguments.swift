import Basics

/// `pipeline replay`'s command line, parsed once.
struct ReplayArguments: CommandArguments {
    /// The manifest that was run.
    var manifestPath: String
    /// TARGETs: jobs or Assembly ids.
    var targets: [String]
    /// `--all`: every Assembly of the last results.
    var all: Bool
    /// `--endpoint`.
    var endpoint: String?
    /// `--policy`.
    var policy: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifestPath = arguments.positionals[0]
        targets = Array(arguments.positionals.dropFirst())
        all = arguments.flag("all")
        (endpoint, policy) = (arguments.value("endpoint"), arguments.value("policy"))
        if all, !targets.isEmpty { throw UsageError("--all replays every Assembly: name TARGETs or give --all, not both", command: ReplayCommand.spec.name) }
    }
}
