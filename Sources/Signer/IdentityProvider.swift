import Foundation

/// An issuer of identity tokens the signer trusts (GitHub Actions, GitLab, Sign in with Apple,
/// Google, …): the `iss` its tokens carry, the audiences they must name, and where its keys are.
public struct IdentityProvider: Sendable {
    /// Where a provider's public keys come from.
    public enum KeySource: Sendable, Equatable {
        /// A JWKS file, read once (for offline use).
        case file(String)
        /// A JWKS URL, fetched and cached; nil finds it by OpenID Connect discovery at the issuer.
        case url(String?)
    }

    /// The name identities refer to it by.
    public var name: String
    /// The exact `iss` of its tokens.
    public var issuer: String
    /// The audiences accepted; a token must name one of them.
    public var audiences: [String]
    /// Where its keys are.
    public var keys: KeySource

    /// Creates a provider.
    public init(name: String, issuer: String, audiences: [String], keys: KeySource) {
        self.name = name
        self.issuer = issuer
        self.audiences = audiences
        self.keys = keys
    }

    /// Why `issuer` cannot be an issuer (OpenID Connect issuers are https URLs without query,
    /// fragment or credentials), or nil.
    public static func problem(issuer: String) -> String? {
        guard let parts = URLComponents(string: issuer), parts.scheme?.lowercased() == "https", parts.host?.isEmpty == false else {
            return "must be an https URL, such as https://token.actions.githubusercontent.com"
        }
        guard parts.query == nil, parts.fragment == nil, parts.user == nil, parts.password == nil else {
            return "must be an https URL without a query, fragment or user name"
        }
        return nil
    }

    /// Where discovery is asked: `{issuer}/.well-known/openid-configuration`.
    var discoveryURL: String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}

/// How keys fetched over HTTPS are kept: fresh for the answer's `Cache-Control: max-age` held
/// within bounds, fetched at most once per `refetchInterval` (whatever unknown key ids tokens
/// name), and used for `staleFor` past their freshness while the provider cannot be reached.
public struct KeyCachePolicy: Sendable {
    /// How long keys stay fresh when the answer gives no `max-age`.
    public var defaultFreshness: Duration
    /// The least and most freshness taken from `max-age`.
    public var freshness: ClosedRange<Duration>
    /// The least time between two fetches of one provider's keys.
    public var refetchInterval: Duration
    /// How long stale keys serve while fetches fail.
    public var staleFor: Duration

    /// Creates a policy: by default fresh 1 hour (or `max-age` between 1 minute and 1 day), one
    /// fetch per 30 seconds at most, stale keys used for up to a day while the provider is down.
    public init(
        defaultFreshness: Duration = .seconds(3600), freshness: ClosedRange<Duration> = .seconds(60)...(.seconds(86_400)),
        refetchInterval: Duration = .seconds(30), staleFor: Duration = .seconds(86_400)
    ) {
        self.defaultFreshness = defaultFreshness
        self.freshness = freshness
        self.refetchInterval = refetchInterval
        self.staleFor = staleFor
    }
}
