import Basics
import Spec

/// `pipeline diff`'s command line, parsed once.
struct DiffArguments: CommandArguments {
    /// OLD: a plan JSON or a manifest (alone: a manifest to compare with its last run or with `--base`).
    var old: String
    /// NEW: a plan JSON or a manifest.
    var new: String?
    /// `--json`.
    var json: Bool
    /// `--exit-code`: exit 2 when something changes.
    var exitCode: Bool
    /// `--policy`.
    var policy: String?
    /// `--base REF`: the manifest at a git revision.
    var base: String?
    /// `--endpoint`: the endpoint the next run goes to, when not the manifest's.
    var endpoint: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let command = DiffCommand.spec.name
        old = arguments.positionals[0]
        new = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        if new == nil, old.hasSuffix(".json") {
            throw UsageError("missing NEW (with one argument, give a manifest to compare with its last run)", command: command)
        }
        json = arguments.flag("json")
        exitCode = arguments.flag("exit-code")
        policy = arguments.value("policy")
        base = arguments.value("base")
        endpoint = arguments.value("endpoint")
        if let problem = endpoint.flatMap({ Endpoint($0).problem }) { throw UsageError(problem.printable, command: command) }
        if base?.isEmpty == true { throw UsageError("--base needs a git revision, such as origin/main", command: command) }
        if base != nil, new != nil || old.hasSuffix(".json") {
            throw UsageError("--base REF compares one manifest with itself at REF: give only the manifest", command: command)
        }
    }
}
