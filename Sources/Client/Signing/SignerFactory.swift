import APIClients
import HTTPClient
import Spec

/// The signer that signing settings (a manifest's `auth.signer`, or `pipeline sign`'s options) ask for.
public enum SignerFactory {
    /// The signer for `settings`; `nil` settings sign with the secret in `$TRANSLOADIT_SECRET`.
    public static func make(_ settings: SignerSettings?, environment: [String: String], http: HTTPClient) throws(SignerError) -> any ParamsSigner {
        switch settings {
        case nil: return try SecretSigner(environment: environment)
        case .secret(let variable)?: return try SecretSigner(environment: environment, variable: variable)
        case .command(let arguments, let timeout)?: return CommandSigner(arguments: arguments, timeout: timeout ?? .seconds(30))
        case .url(let url, let token)?:
            let tokens: (any BearerTokenSource)? = switch token {
            case .value(let value)?: FixedToken(value)
            case .identity(let source)?: IdentityTokens(source, environment: environment, http: http)
            case nil: nil
            }
            return URLSigner(url: url, tokens: tokens, http: http)
        }
    }
}
