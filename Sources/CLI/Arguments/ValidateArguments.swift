import Basics
import Spec

/// `pipeline validate`'s command line, parsed once.
struct ValidateArguments: CommandArguments {
    /// The manifest to check.
    var manifest: String
    /// `--policy`.
    var policy: String?
    /// `--json`.
    var json: Bool
    /// `--endpoint`.
    var endpoint: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifest = arguments.positionals[0]
        policy = arguments.value("policy")
        json = arguments.flag("json")
        endpoint = arguments.value("endpoint")
        if let problem = endpoint.flatMap({ Endpoint($0).problem }) { throw UsageError(problem.printable, command: ValidateCommand.spec.name) }
    }
}
