import APIClients
import Basics
import Foundation
import HTTPClient
import Spec
import Synchronization

/// Where a signing backend's bearer token comes from: a fixed token, or an identity token the
/// runner obtains (and obtains again shortly before it expires).
public protocol BearerTokenSource: Sendable {
    /// The token to send now. Errors never contain a token.
    func token() async throws(SignerError) -> String
}

/// A token given as it is.
public struct FixedToken: BearerTokenSource {
    let value: String

    /// Creates a source that always gives `value`.
    public init(_ value: String) { self.value = value }

    public func token() async throws(SignerError) -> String { value }
}

/// OpenID Connect identity tokens for a CI job: requested from GitHub Actions' token endpoint,
/// or read from a variable (GitLab's `id_tokens`, any CI's). A token is reused until a minute
/// before its `exp`, and held in memory only.
public final class IdentityTokens: BearerTokenSource {
    /// How long before its expiry a token is replaced.
    static let renewBefore: TimeInterval = 60

    private let source: IdentityTokenSource
    private let environment: [String: String]
    private let http: HTTPClient
    private let cached = Mutex<(token: String, expires: Date)?>(nil)

    /// Creates a source of identity tokens from `source`, reading `environment`.
    public init(_ source: IdentityTokenSource, environment: [String: String], http: HTTPClient) {
        self.source = source
        self.environment = environment
        self.http = http
    }

    public func token() async throws(SignerError) -> String {
        if let cached = cached.withLock({ $0 }), cached.expires.timeIntervalSinceNow > Self.renewBefore { return cached.token }
        let token: String
        switch source {
        case .github(let audience): token = try await requestFromGitHub(audience: audience)
        case .variable(let name): token = try read(variable: name)
        }
        guard let claims = Base64URL.unverifiedClaims(of: token) else {
            throw SignerError("the identity token from \(origin) is not a JWT")
        }
        // A token without `exp` is used once; the signer refuses expired ones anyway.
        let expires = claims["exp"]?.doubleValue.map { Date(timeIntervalSince1970: $0) } ?? Date()
        if expires.timeIntervalSinceNow <= 0 {
            let hint = if case .github = source { "; check this machine's clock" } else { "; the CI job must provide a fresh one" }
            throw SignerError("the identity token from \(origin) expired at \(ISO8601DateFormatter().string(from: expires))" + hint)
        }
        cached.withLock { $0 = (token, expires) }
        return token
    }

    private var origin: String {
        switch source {
        case .github: "GitHub Actions"
        case .variable(let name): "$\(name)"
        }
    }

    private func read(variable name: String) throws(SignerError) -> String {
        guard let token = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            throw SignerError("$\(name) holds no identity token; declare it in the job (GitLab: id_tokens: {\(name): {aud: ...}})")
        }
        return token
    }

    /// GitHub's protocol: GET `$ACTIONS_ID_TOKEN_REQUEST_URL&audience=AUD` with the request token
    /// as bearer; the answer is `{"value": "<jwt>"}`.
    private func requestFromGitHub(audience: String) async throws(SignerError) -> String {
        let missing = ["ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"].filter { environment[$0]?.isEmpty ?? true }
        guard missing.isEmpty, let base = environment["ACTIONS_ID_TOKEN_REQUEST_URL"], let requestToken = environment["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] else {
            throw SignerError("no GitHub Actions identity token can be requested (" + missing.map { "$" + $0 }.joined(separator: " and ")
                + (missing.count == 1 ? " is" : " are") + " not set); "
                + "give the job 'permissions: id-token: write', or outside GitHub Actions use another 'auth.signer.token'")
        }
        guard SecureURL.allowsSecrets(base) else {
            throw SignerError("$ACTIONS_ID_TOKEN_REQUEST_URL is not https; the request token must not travel in clear text")
        }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let url = base + (base.contains("?") ? "&" : "?") + "audience=" + (audience.addingPercentEncoding(withAllowedCharacters: allowed) ?? audience)
        let request = HTTPRequest(
            method: "GET", url: url, headers: [("Authorization", "bearer " + requestToken), ("Accept", "application/json")],
            timeouts: HTTPTimeouts(connect: .seconds(10), stallTime: .seconds(10), total: .seconds(30)), maxResponseBytes: 64 << 10)
        let response: HTTPResponse
        do {
            response = try await http.send(request)
        } catch {
            throw SignerError("GitHub Actions' token endpoint did not answer: \((error as? HTTPError)?.message ?? "\(error)")")
        }
        guard response.status == 200 else {
            // A refusal's body may quote the request token in any escaping: it is not shown.
            if [401, 403].contains(response.status) {
                throw SignerError("GitHub Actions' token endpoint refused the request token (HTTP \(response.status)); "
                    + "the job needs 'permissions: id-token: write', and the token is valid only while the job runs")
            }
            var redacted = response
            redacted.body = Data(String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: requestToken, with: "[request token]").utf8)
            throw SignerError("GitHub Actions' token endpoint answered HTTP \(response.status): \(redacted.bodyText(limit: 200))")
        }
        guard let value = JSONValue.parseIfValid(response.body)?["value"]?.stringValue, !value.isEmpty else {
            throw SignerError("GitHub Actions' token endpoint answered without a 'value'")
        }
        return value
    }
}
