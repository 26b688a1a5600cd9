import Basics
import Foundation
import HTTPServer
import Signer
import Spec

/// `pipeline signer`: the signing backend that keeps the Auth Secret out of CI.
struct SignerCommand: Command {
    static let spec = CommandSpec(
        name: "signer",
        summary: "Run the signing backend: checks params against a policy and signs them for known callers.",
        discussion: """
        POST /sign takes {"params": "<exact string>"} with 'Authorization: Bearer <token>' and answers \
        {"params", "signature"} or a refusal listing every violation. Callers are static tokens (stored as \
        SHA-256) or identity tokens (JWTs, RS256 or ES256) from the OpenID Connect providers the callers file \
        lists (keys fetched over HTTPS and cached) or from --jwks. GET /policy serves the \
        policy in force; GET /healthz answers when it runs. A 'template_id' that the policy's templates.allowed \
        does not list as an id is looked up at --endpoint with the Auth Key and Secret, and allowed when the \
        Template's name is listed and its steps pass the policy (answers are kept for 60 s). With --tls-cert and --tls-key it speaks HTTPS; \
        otherwise keep it on 127.0.0.1 or behind a TLS proxy (see docs/signer.md).
        """,
        options: [
            .init(name: "policy", valueName: "FILE", help: "The policy to enforce (callers may name their own)."),
            .init(name: "tokens", valueName: "FILE", help: "The callers file: static tokens and identity rules."),
            .init(name: "jwks", valueName: "FILE", help: "One identity provider's public keys, for JWT callers (providers may also be listed in --tokens)."),
            .init(name: "issuer", valueName: "ISS", help: "The 'iss' JWTs must carry (required with --jwks)."),
            .init(name: "audience", valueName: "AUD", help: "The 'aud' JWTs must carry (required with --jwks)."),
            .init(name: "auth-key", valueName: "KEY", help: "The Auth Key params must carry (default: the policy's auth_key)."),
            CommandSpec.secretEnvOption,
            .init(name: "secret-file", valueName: "FILE", help: "A file holding the Auth Secret, readable only by its owner."),
            .init(name: "host", valueName: "ADDRESS", help: "The IPv4 or IPv6 address to listen on (default 127.0.0.1)."),
            .init(name: "port", valueName: "N", help: "The port (default 8788; 0 picks a free one)."),
            .init(name: "audit-log", valueName: "FILE", help: "Append one JSON line per decision to FILE."),
            .init(name: "endpoint", valueName: "URL", help: "Where a template_id the policy lists by name is looked up (default \(Endpoint.hosted.name); 'none' accepts only ids the policy lists)."),
            CommandSpec.caCertOption,
        ] + TLSFiles.options,
        examples: ["pipeline signer --policy policy.yml --tokens callers.yml --audit-log audit.jsonl"])

    let arguments: SignerArguments

    init(_ arguments: SignerArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let signals = SignalCenter.waiter()
        let view = ServerView(name: "pipeline signer")
        let policyPath = arguments.policyPath
        let loaded = PolicyLoader(environment: context.environment).load(path: policyPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let policy = loaded.value else { return ExitCode.failure }
        let policyData: Data
        do { policyData = try FileReading.read(policyPath) } catch {
            view.failure("\(error)", context: context)
            return ExitCode.failure
        }
        guard let secret = readSecret(view, context) else { return ExitCode.failure }
        let service: SigningService
        do {
            service = try SigningService(.init(
                policy: policy, policyText: String(decoding: policyData, as: UTF8.self), callersPath: arguments.callersPath,
                providers: arguments.jwks.map { [IdentityProvider(name: "default", issuer: $0.issuer, audiences: [$0.audience], keys: .file($0.path))] } ?? [],
                authKey: arguments.authKey, secret: secret, auditLog: arguments.auditLog,
                templatesEndpoint: arguments.templatesEndpoint, http: context.http),
                environment: context.environment)
        } catch {
            context.report(error.diagnostics, sources: SourceStore())
            return ExitCode.failure
        }
        let host = arguments.host
        let tls: (keyPEM: String, certificatePEM: String)?
        switch TLSFiles.load(arguments.tls) {
        case .success(let files): tls = files
        case .failure(let error):
            view.failure(error.message, context: context)
            return ExitCode.failure
        }
        let server: HTTPServer
        do {
            server = try HTTPServer(HTTPServer.Configuration(host: host, port: arguments.port, tls: tls), handler: service)
        } catch {
            view.cannotListen(error, context: context)
            return ExitCode.failure
        }
        view.listening("\(tls == nil ? "http" : "https")://\(HTTPServer.urlHost(host)):\(server.port)", context: context)
        if arguments.authKey == nil, policy.authKey == nil {
            view.anyAuthKey(context: context)
        }
        let signal = await signals.next()
        view.stopping(signal, context: context)
        server.stop()
        return ExitCode.success
    }

    /// The secret from `--secret-file` (owner-only) or the environment; errors never show it.
    private func readSecret(_ view: ServerView, _ context: CommandContext) -> String? {
        if let file = arguments.secretFile {
            var info = stat()
            guard stat(file, &info) == 0 else {
                view.failure("cannot read the secret file '\(file)'", context: context)
                return nil
            }
            guard info.st_mode & 0o077 == 0 else {
                view.failure("'\(file)' may be read by others", hint: "chmod 600 '\(file)'", context: context)
                return nil
            }
            let data: Data
            do { data = try FileReading.read(file, limit: 64 << 10) } catch {
                view.failure("cannot read the secret file: \(error)", context: context)
                return nil
            }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let variable = arguments.secretVariable
        guard let secret = context.environment[variable], !secret.isEmpty else {
            view.failure("$\(variable) is not set", hint: "export the Auth Secret there, or pass --secret-file FILE", context: context)
            return nil
        }
        return secret
    }
}
