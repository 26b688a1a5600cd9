/// `pipeline status`'s command line, parsed once.
struct StatusArguments: CommandArguments {
    /// The manifest that was run.
    var manifest: String
    /// `--json`.
    var json: Bool
    /// `--endpoint`.
    var endpoint: String?
    /// `--wait` (with `--timeout`): the collecting run's arguments.
    var collect: RunArguments?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifest = arguments.positionals[0]
        json = arguments.flag("json")
        endpoint = arguments.value("endpoint")
        guard arguments.flag("wait") else {
            guard arguments.value("timeout") == nil else { throw UsageError("--timeout goes with --wait", command: StatusCommand.spec.name) }
            collect = nil
            return
        }
        collect = try RunArguments.collecting(manifest, endpoint: endpoint, timeout: arguments.value("timeout"), json: json)
    }
}
