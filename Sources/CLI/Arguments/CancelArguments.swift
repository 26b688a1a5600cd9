import Basics
import Spec

/// `pipeline cancel`'s command line, parsed once.
struct CancelArguments: CommandArguments {
    /// The manifest that was run.
    var manifest: String
    /// `--endpoint`.
    var endpoint: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifest = arguments.positionals[0]
        endpoint = arguments.value("endpoint")
        if let problem = endpoint.flatMap({ Endpoint($0).problem }) { throw UsageError(problem.printable, command: CancelCommand.spec.name) }
    }
}
