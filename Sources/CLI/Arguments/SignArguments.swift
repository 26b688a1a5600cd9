import Basics
import Spec

/// `pipeline sign`'s command line, parsed once.
struct SignArguments: CommandArguments {
    /// Where the bearer token for `--signer url` comes from.
    enum Token: Sendable {
        /// `--token-oidc`: an identity token, requested or read from a variable.
        case identity(IdentityTokenSource)
        /// `--token-env VAR`: a stored token in a variable.
        case variable(String)
        /// `--token-file FILE`: a stored token in a file.
        case file(String)
    }

    /// What signs the params: `--signer` with the options that go with it.
    enum Signer: Sendable {
        /// The Auth Secret in a variable (`--secret-env`).
        case secret(variable: String)
        /// A program and its arguments (`--command`).
        case command([String])
        /// A signing backend (`--url`), with its token if any.
        case url(String, token: Token?)
    }

    /// `--params`: a file, or `-` for standard input.
    var paramsPath: String
    /// The signer and its settings.
    var signer: Signer
    /// `--key`: the Auth Key when the params have none.
    var key: String?
    /// `--expires-in`.
    var lifetime: Duration

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let command = SignCommand.spec.name
        paramsPath = arguments.value("params") ?? "-"
        let kind = arguments.value("signer") ?? "secret"
        guard ["secret", "command", "url"].contains(kind) else {
            throw UsageError("--signer must be secret, command or url, not '\(kind)'", command: command)
        }
        let program = arguments.value("command")
        if kind == "command", program == nil {
            throw UsageError("--signer command needs --command PROGRAM", command: command)
        }
        let url = arguments.value("url")
        if kind == "url" {
            guard let url else { throw UsageError("--signer url needs --url URL", command: command) }
            guard SecureURL.allowsSecrets(url) else {
                throw UsageError("--url must be https (or http on 127.0.0.1 or localhost): a token must not travel in clear text", command: command)
            }
        }
        let (variable, file, audience) = (arguments.value("token-env"), arguments.value("token-file"), arguments.value("audience"))
        var token: Token?
        if let oidc = arguments.value("token-oidc") {
            guard kind == "url" else { throw UsageError("--token-oidc goes with --signer url", command: command) }
            guard file == nil else {
                throw UsageError("--token-oidc sends an identity token, not a stored one; drop --token-file", command: command)
            }
            switch oidc {
            case "github":
                guard let audience else {
                    throw UsageError("--token-oidc github needs --audience AUD: the audience the signer accepts", command: command)
                }
                guard variable == nil else {
                    throw UsageError("--token-oidc github requests its own token; drop --token-env", command: command)
                }
                token = .identity(.github(audience: audience))
            case "gitlab", "env":
                guard let variable, audience == nil else {
                    throw UsageError("--token-oidc \(oidc) reads the token from --token-env VAR and takes no --audience", command: command)
                }
                token = .identity(.variable(variable))
            default:
                throw UsageError("--token-oidc must be github, gitlab or env, not '\(oidc)'", command: command)
            }
        } else if audience != nil {
            throw UsageError("--audience goes with --token-oidc github", command: command)
        }
        if variable != nil, file != nil {
            throw UsageError("give the token once: --token-env VAR or --token-file FILE, not both", command: command)
        }
        lifetime = try arguments.duration("expires-in", default: .seconds(3600))
        key = arguments.value("key")
        switch kind {
        case "command": signer = .command((program ?? "").split(separator: " ").map(String.init))
        case "url": signer = .url(url ?? "", token: token ?? variable.map(Token.variable) ?? file.map(Token.file))
        default: signer = .secret(variable: arguments.secretVariable)
        }
    }
}
