/// `pipeline gc`'s command line, parsed once.
struct GCArguments: CommandArguments {
    /// The manifest whose state is collected.
    var manifest: String
    /// `--dry-run`: say, remove nothing.
    var dryRun: Bool

    init(_ arguments: ParsedArguments) {
        manifest = arguments.positionals[0]
        dryRun = arguments.flag("dry-run")
    }
}
