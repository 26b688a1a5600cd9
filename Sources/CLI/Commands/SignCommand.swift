import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import Spec
import Wire

/// `pipeline sign`: signs params with the configured backend and prints both, for debugging and
/// for other tools.
struct SignCommand: Command {
    static let spec = CommandSpec(
        name: "sign",
        summary: "Sign Assembly params and print {\"params\": ..., \"signature\": ...}.",
        discussion: """
        Reads params JSON, fills in auth.key, auth.expires and auth.nonce where they are missing, \
        serializes the params once and signs exactly those bytes. The secret signer reads the Auth \
        Secret from the environment; the command signer runs a program; the url signer asks a \
        signing backend such as 'pipeline signer'. No secret or token is ever printed.
        """,
        options: [
            .init(name: "params", valueName: "FILE", help: "The params JSON, or - for standard input (the default)."),
            .init(name: "signer", valueName: "KIND", help: "secret (default), command or url.", choices: ["secret", "command", "url"]),
            CommandSpec.secretEnvOption,
            .init(name: "command", valueName: "PROGRAM", help: "The signing program and its arguments, split at spaces."),
            .init(name: "url", valueName: "URL", help: "The signing backend (https, or http on 127.0.0.1/localhost)."),
            .init(name: "token-env", valueName: "VAR", help: "The variable holding the bearer token for --url."),
            .init(name: "token-file", valueName: "FILE", help: "A file holding the bearer token for --url."),
            .init(name: "token-oidc", valueName: "KIND", help: "Send an identity token instead: github (requested for --audience), or gitlab or env (read from --token-env).",
                  choices: ["github", "gitlab", "env"]),
            .init(name: "audience", valueName: "AUD", help: "The audience of the GitHub identity token (with --token-oidc github)."),
            .init(name: "key", valueName: "KEY", help: "The Auth Key when the params have none (default $TRANSLOADIT_KEY)."),
            .init(name: "expires-in", valueName: "DURATION", help: "Signature lifetime when the params have no auth.expires (default 1h)."),
            CommandSpec.caCertOption,
        ],
        examples: [
            "echo '{\"steps\": {}}' | TRANSLOADIT_KEY=k TRANSLOADIT_SECRET=s pipeline sign",
            "pipeline sign --params params.json --signer url --url https://signer.example.com/sign --token-env SIGNER_TOKEN",
            "pipeline sign --params params.json --signer url --url https://signer.example.com/sign --token-oidc github --audience pipeline-signer",
        ])

    let paramsPath: String
    let signer: String
    let arguments: ParsedArguments
    let lifetime: Duration

    init(_ arguments: ParsedArguments) throws(UsageError) {
        paramsPath = arguments.value("params") ?? "-"
        signer = arguments.value("signer") ?? "secret"
        guard ["secret", "command", "url"].contains(signer) else {
            throw UsageError("--signer must be secret, command or url, not '\(signer)'", command: Self.spec.name)
        }
        if signer == "command", arguments.value("command") == nil {
            throw UsageError("--signer command needs --command PROGRAM", command: Self.spec.name)
        }
        if signer == "url" {
            guard let url = arguments.value("url") else { throw UsageError("--signer url needs --url URL", command: Self.spec.name) }
            guard SecureURL.allowsSecrets(url) else {
                throw UsageError("--url must be https (or http on 127.0.0.1 or localhost): a token must not travel in clear text", command: Self.spec.name)
            }
        }
        if let kind = arguments.value("token-oidc") {
            guard signer == "url" else { throw UsageError("--token-oidc goes with --signer url", command: Self.spec.name) }
            guard arguments.value("token-file") == nil else {
                throw UsageError("--token-oidc sends an identity token, not a stored one; drop --token-file", command: Self.spec.name)
            }
            switch kind {
            case "github":
                guard arguments.value("audience") != nil else {
                    throw UsageError("--token-oidc github needs --audience AUD: the audience the signer accepts", command: Self.spec.name)
                }
                guard arguments.value("token-env") == nil else {
                    throw UsageError("--token-oidc github requests its own token; drop --token-env", command: Self.spec.name)
                }
            case "gitlab", "env":
                guard arguments.value("token-env") != nil, arguments.value("audience") == nil else {
                    throw UsageError("--token-oidc \(kind) reads the token from --token-env VAR and takes no --audience", command: Self.spec.name)
                }
            default:
                throw UsageError("--token-oidc must be github, gitlab or env, not '\(kind)'", command: Self.spec.name)
            }
        } else if arguments.value("audience") != nil {
            throw UsageError("--audience goes with --token-oidc github", command: Self.spec.name)
        }
        if arguments.value("token-env") != nil, arguments.value("token-file") != nil {
            throw UsageError("give the token once: --token-env VAR or --token-file FILE, not both", command: Self.spec.name)
        }
        lifetime = try arguments.duration("expires-in", default: .seconds(3600))
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let data: Data
        do {
            data = paramsPath == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try FileReading.read(paramsPath)
        } catch {
            context.output.failure("\(error)")
            return ExitCode.failure
        }
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(data) } catch {
            context.output.failure("the params in '\(paramsPath)' are not a JSON object (\(error))", hint: "pass params such as {\"steps\": {...}}")
            return ExitCode.failure
        }
        guard parsed.objectValue != nil else {
            context.output.failure("the params in '\(paramsPath)' are not a JSON object", hint: "pass params such as {\"steps\": {...}}")
            return ExitCode.failure
        }
        do {
            let params = try prepare(parsed, environment: context.environment).serialized()
            let signature = try await makeSigner(context).sign(params)
            context.output.out(JSONValue.object(["params": .string(params), "signature": .string(signature)]).serialized(pretty: true) + "\n")
            return ExitCode.success
        } catch {
            context.output.failure("\(error.message)")
            return ExitCode.failure
        }
    }

    private func prepare(_ params: JSONValue, environment: [String: String]) throws(SignerError) -> JSONValue {
        let auth = params["auth"]?.objectValue ?? [:]
        guard let key = auth["key"]?.stringValue ?? arguments.value("key") ?? environment["TRANSLOADIT_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw SignerError("the params have no auth.key; pass --key or set $TRANSLOADIT_KEY")
        }
        var prepared = AuthParams.prepare(params, key: key, lifetime: lifetime).objectValue ?? [:]
        var filled = prepared["auth"]?.objectValue ?? [:]
        for (name, value) in auth { filled[name] = value }
        prepared["auth"] = .object(filled)
        return .object(prepared)
    }

    private func makeSigner(_ context: CommandContext) throws(SignerError) -> any ParamsSigner {
        let environment = context.environment
        let settings: SignerSettings
        switch signer {
        case "command": settings = .command(arguments: (arguments.value("command") ?? "").split(separator: " ").map(String.init), timeout: nil)
        case "url": settings = .url(arguments.value("url") ?? "", token: try token(environment))
        default: settings = .secret(variable: arguments.secretVariable)
        }
        return try SignerFactory.make(settings, environment: environment, http: context.http)
    }

    private func token(_ environment: [String: String]) throws(SignerError) -> SignerToken? {
        switch arguments.value("token-oidc") {
        case "github": return .identity(.github(audience: arguments.value("audience") ?? ""))
        case _?: return .identity(.variable(arguments.value("token-env") ?? ""))
        case nil: break
        }
        if let variable = arguments.value("token-env") {
            guard let token = environment[variable], !token.isEmpty else { throw SignerError("$\(variable) is not set") }
            return .value(token)
        }
        if let file = arguments.value("token-file") {
            let data: Data
            do { data = try FileReading.read(file, limit: 64 << 10) } catch { throw SignerError("cannot read the token file: \(error)") }
            return .value(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return nil
    }
}
