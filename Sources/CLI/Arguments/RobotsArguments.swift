/// `pipeline robots`'s command line, parsed once.
struct RobotsArguments: CommandArguments {
    /// One robot to explain; all when nil.
    var name: String?
    /// `--json`.
    var json: Bool

    init(_ arguments: ParsedArguments) {
        name = arguments.positionals.first
        json = arguments.flag("json")
    }
}
