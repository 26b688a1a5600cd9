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

    let arguments: SignArguments

    init(_ arguments: SignArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = SignView()
        let data: Data
        do {
            data = arguments.paramsPath == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try FileReading.read(arguments.paramsPath)
        } catch {
            view.failure("\(error)", context: context)
            return ExitCode.failure
        }
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(data) } catch {
            view.notAnObject(arguments.paramsPath, problem: error, context: context)
            return ExitCode.failure
        }
        guard parsed.objectValue != nil else {
            view.notAnObject(arguments.paramsPath, problem: nil, context: context)
            return ExitCode.failure
        }
        do {
            let params = try prepare(parsed, environment: context.environment).serialized()
            let signature = try await makeSigner(context).sign(params)
            view.signed(params: params, signature: signature, context: context)
            return ExitCode.success
        } catch {
            view.failure(error.message, context: context)
            return ExitCode.failure
        }
    }

    private func prepare(_ params: JSONValue, environment: [String: String]) throws(SignerError) -> JSONValue {
        let auth = params["auth"]?.objectValue ?? [:]
        guard let key = auth["key"]?.stringValue ?? arguments.key ?? environment["TRANSLOADIT_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw SignerError("the params have no auth.key; pass --key or set $TRANSLOADIT_KEY")
        }
        var prepared = AuthParams.prepare(params, key: key, lifetime: arguments.lifetime).objectValue ?? [:]
        var filled = prepared["auth"]?.objectValue ?? [:]
        for (name, value) in auth { filled[name] = value }
        prepared["auth"] = .object(filled)
        return .object(prepared)
    }

    private func makeSigner(_ context: CommandContext) throws(SignerError) -> any ParamsSigner {
        let environment = context.environment
        let settings: SignerSettings
        switch arguments.signer {
        case .command(let program): settings = .command(arguments: program, timeout: nil)
        case .url(let url, let token?): settings = .url(url, token: try Self.token(token, environment: environment))
        case .url(let url, nil): settings = .url(url, token: nil)
        case .secret(let variable): settings = .secret(variable: variable)
        }
        return try SignerFactory.make(settings, environment: environment, http: context.http)
    }

    private static func token(_ token: SignArguments.Token, environment: [String: String]) throws(SignerError) -> SignerToken {
        switch token {
        case .identity(let source):
            return .identity(source)
        case .variable(let variable):
            guard let token = environment[variable], !token.isEmpty else { throw SignerError("$\(variable) is not set") }
            return .value(token)
        case .file(let file):
            let data: Data
            do { data = try FileReading.read(file, limit: 64 << 10) } catch { throw SignerError("cannot read the token file: \(error)") }
            return .value(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
