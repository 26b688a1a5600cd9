import Basics

/// `pipeline notify`'s command line, parsed once.
struct NotifyArguments: CommandArguments {
    /// What the command does, with the options that go with it.
    enum Action: Sendable {
        /// Check one notification's signature (`file` nil: standard input).
        case verify(file: String?, contentType: String?)
        /// Take the notifications of a run that did not wait, and collect its results.
        case receive(manifest: String, host: String, port: UInt16, timeout: Duration, askEvery: Duration, endpoint: String?)
    }

    /// The action.
    var action: Action
    /// The variable holding the Auth Secret (`--secret-env`).
    var secretVariable: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        secretVariable = arguments.secretVariable
        let target = arguments.positionals.dropFirst().first
        switch arguments.positionals.first {
        case "verify":
            action = .verify(file: target == "-" ? nil : target, contentType: arguments.value("content-type"))
        case "receive":
            action = .receive(
                manifest: target ?? ParsedArguments.defaultManifest, host: arguments.value("host") ?? "127.0.0.1",
                port: try arguments.port(default: 8788), timeout: try arguments.duration("timeout", default: .seconds(8 * 3600)),
                askEvery: try arguments.duration("ask-every", default: .seconds(30)), endpoint: arguments.value("endpoint"))
        default:
            throw UsageError("ACTION must be verify or receive, not '\((arguments.positionals.first ?? "").printable)'", command: NotifyCommand.spec.name)
        }
    }
}
