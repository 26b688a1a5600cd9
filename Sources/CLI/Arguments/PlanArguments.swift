import Basics
import Spec

/// `pipeline plan`'s command line, parsed once.
struct PlanArguments: CommandArguments {
    /// How the plan is shown (`--format`, or `--json`).
    enum Format: String, Sendable { case text, json, markdown }

    /// The manifest to plan.
    var manifest: String
    /// `--out`: where the plan's JSON is written.
    var out: String?
    /// `--format` (or `--json`).
    var format: Format
    /// `--policy`.
    var policy: String?
    /// `--offline`: Templates compared with the last sync.
    var offline: Bool
    /// `--prune`.
    var prune: Bool
    /// `--endpoint`.
    var endpoint: String?
    /// `--rehash`.
    var rehash: Bool
    /// `--shard I/N`.
    var shard: (index: Int, count: Int)?
    /// For `--shard auto`: which variables the shard came from.
    var shardOrigin: String?
    /// `--max-bytes`.
    var maxBytes: Int64?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let command = PlanCommand.spec.name
        manifest = arguments.positionals[0]
        out = arguments.value("out")
        let name = arguments.value("format") ?? (arguments.flag("json") ? "json" : "text")
        guard let format = Format(rawValue: name) else {
            throw UsageError("--format must be text, json or markdown, not '\(name)'", command: command)
        }
        guard !arguments.flag("json") || format == .json else {
            throw UsageError("--json and --format \(name) ask for different outputs; keep one", command: command)
        }
        self.format = format
        policy = arguments.value("policy")
        offline = arguments.flag("offline")
        prune = arguments.flag("prune")
        shard = try arguments.shard()
        maxBytes = try arguments.size("max-bytes", minimum: 1)
        endpoint = arguments.value("endpoint")
        if let problem = endpoint.flatMap({ Endpoint($0).problem }) { throw UsageError(problem.printable, command: command) }
        rehash = arguments.flag("rehash")
        shardOrigin = arguments.shardOrigin
    }
}
