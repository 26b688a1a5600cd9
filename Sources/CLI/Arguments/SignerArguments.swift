import Basics
import Signer
import Spec

/// `pipeline signer`'s command line, parsed once.
struct SignerArguments: CommandArguments {
    /// `--policy`.
    var policyPath: String
    /// `--tokens`: the callers file.
    var callersPath: String
    /// `--jwks` with the `--issuer` and `--audience` its tokens must carry.
    var jwks: (path: String, issuer: String, audience: String)?
    /// `--auth-key`.
    var authKey: String?
    /// The variable holding the Auth Secret (`--secret-env`).
    var secretVariable: String
    /// `--secret-file`.
    var secretFile: String?
    /// `--host`.
    var host: String
    /// `--port`.
    var port: UInt16
    /// `--audit-log`.
    var auditLog: String?
    /// `--endpoint`: where Templates are looked up; nil for 'none'.
    var templatesEndpoint: String?
    /// `--tls-cert` and `--tls-key`.
    var tls: TLSFilePaths

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let command = SignerCommand.spec.name
        guard let policyPath = arguments.value("policy") else { throw UsageError("missing --policy FILE", command: command) }
        guard let callersPath = arguments.value("tokens") else { throw UsageError("missing --tokens FILE", command: command) }
        (self.policyPath, self.callersPath) = (policyPath, callersPath)
        if let jwks = arguments.value("jwks") {
            guard let issuer = arguments.value("issuer"), let audience = arguments.value("audience"), !issuer.isEmpty, !audience.isEmpty else {
                throw UsageError(
                    "--jwks needs --issuer and --audience: without them a token the provider minted for any other service would be accepted",
                    command: command)
            }
            if let problem = IdentityProvider.problem(issuer: issuer) {
                throw UsageError("--issuer \(problem)", command: command)
            }
            self.jwks = (jwks, issuer, audience)
        } else {
            jwks = nil
        }
        port = try arguments.port(default: 8788)
        switch arguments.value("endpoint") ?? Endpoint.hosted.name {
        case "none": templatesEndpoint = nil
        case let url where url.hasPrefix("https://") || url.hasPrefix("http://"): templatesEndpoint = url
        case let other: throw UsageError("--endpoint must be an http(s) URL or 'none', not '\(other)'", command: command)
        }
        authKey = arguments.value("auth-key")
        secretVariable = arguments.secretVariable
        secretFile = arguments.value("secret-file")
        host = arguments.value("host") ?? "127.0.0.1"
        auditLog = arguments.value("audit-log")
        tls = TLSFilePaths(arguments)
    }
}
