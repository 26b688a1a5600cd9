import Basics
import Spec
import Wire

/// `pipeline sign-url`'s command line, parsed once.
struct SignURLArguments: CommandArguments {
    /// WORKSPACE, TEMPLATE and INPUT.
    var url: (workspace: String, template: String, input: String)
    /// `--param NAME=VALUE`, in order.
    var parameters: [(name: String, value: String)]
    /// `--expires`.
    var lifetime: Duration
    /// `--key`.
    var key: String?
    /// `--policy`.
    var policyPath: String?
    /// The variable holding the Auth Secret (`--secret-env`).
    var secretVariable: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        url = (arguments.positionals[0], arguments.positionals[1], arguments.positionals[2])
        guard SmartCDNURL.isValidWorkspace(url.workspace) else {
            throw UsageError("WORKSPACE must be a host name's first label (letters, digits, '-'), not '\(url.workspace.printable)'", command: SignURLCommand.spec.name)
        }
        guard !url.template.isEmpty else { throw UsageError("TEMPLATE must not be empty", command: SignURLCommand.spec.name) }
        var parameters: [(name: String, value: String)] = []
        for given in arguments.values("param") {
            guard let equals = given.firstIndex(of: "="), equals != given.startIndex else {
                throw UsageError("--param needs NAME=VALUE, such as width=400, not '\(given.printable)'", command: SignURLCommand.spec.name)
            }
            let name = String(given[..<equals])
            guard !["auth_key", "exp", "sig"].contains(name) else {
                throw UsageError("--param \(name) is set by sign-url itself (--key, --expires)", command: SignURLCommand.spec.name)
            }
            parameters.append((name, String(given[given.index(after: equals)...])))
        }
        self.parameters = parameters
        lifetime = try arguments.duration("expires", default: .seconds(3600))
        key = arguments.value("key")
        policyPath = arguments.value("policy")
        secretVariable = arguments.secretVariable
    }
}
