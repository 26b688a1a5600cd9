/// `pipeline report`'s command line, parsed once.
struct ReportArguments: CommandArguments {
    /// The manifest that was run.
    var manifest: String
    /// `--out`: where the page goes.
    var out: String?
    /// `--compare`: an earlier results file to show next to these.
    var compare: String?

    init(_ arguments: ParsedArguments) {
        manifest = arguments.positionals[0]
        out = arguments.value("out")
        compare = arguments.value("compare")
    }
}
