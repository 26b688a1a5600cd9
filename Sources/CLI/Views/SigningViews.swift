import Basics

/// What `sign` says: the signed params as JSON, or why they could not be signed.
struct SignView: Sendable {
    /// The params file could not be read, or the signer refused.
    func failure(_ message: String, context: CommandContext) {
        context.output.failure(message)
    }

    /// The params are not a JSON object (`problem`: the parser's words, when it failed).
    func notAnObject(_ path: String, problem: (any Error)?, context: CommandContext) {
        let because = problem.map { " (\($0))" } ?? ""
        context.output.failure("the params in '\(path)' are not a JSON object\(because)", hint: "pass params such as {\"steps\": {...}}")
    }

    /// `{"params": ..., "signature": ...}` on standard output.
    func signed(params: String, signature: String, context: CommandContext) {
        context.output.out(JSONValue.object(["params": .string(params), "signature": .string(signature)]).serialized(pretty: true) + "\n")
    }
}

/// What `sign-url` says: the signed URL, or why there is none.
struct SignURLView: Sendable {
    /// No Auth Key was given or set.
    func noAuthKey(context: CommandContext) {
        context.output.failure("no Auth Key", hint: "pass --key KEY or set $TRANSLOADIT_KEY")
    }

    /// The signed URL on standard output.
    func signed(_ url: String, context: CommandContext) {
        context.output.out(url + "\n")
    }
}
