import Basics
import Foundation
import HTTPClient
import HTTPServer
import Spec
import Wire

/// `pipeline signer`: authenticates the caller, checks the params against the caller's policy
/// and signs exactly the bytes received. Serves `POST /sign`, `GET /policy`, `GET /healthz`.
public final class SigningService: HTTPServerHandler, Sendable {
    /// What the service needs.
    public struct Configuration: Sendable {
        /// The policy for callers whose entry names none, and for `GET /policy`.
        public var policy: Policy
        /// The policy file's text, served at `GET /policy`.
        public var policyText: String
        /// The callers file.
        public var callersPath: String
        /// Identity providers besides the callers file's (`--jwks`, `--issuer`, `--audience`).
        public var providers: [IdentityProvider]
        /// How providers' keys fetched over HTTPS are kept.
        public var keyCache: KeyCachePolicy
        /// The Auth Key params must carry, if set (else the policy's `auth_key`).
        public var authKey: String?
        /// The Auth Secret (from the environment or an owner-only file).
        public var secret: String
        /// Where decisions are logged.
        public var auditLog: String?
        /// The Assembly API whose Templates a `template_id` is looked up at, when the policy lists it
        /// by name rather than by id; nil checks ids only.
        public var templatesEndpoint: String?
        /// The HTTP client for those lookups and for providers' keys (its trust: `--ca-cert`).
        public var http: HTTPClient
        /// The clock key caches and their cooldowns are measured by; tests give one they move.
        public var clock: any MonotonicClock = SystemClock()
        /// Where operational problems (a provider that cannot be reached) are reported; standard error by default.
        public var log: @Sendable (String) -> Void = { message in FileHandle.standardError.write(Data("pipeline signer: \(message)\n".utf8)) }

        /// Creates a configuration.
        public init(policy: Policy, policyText: String, callersPath: String, providers: [IdentityProvider] = [], keyCache: KeyCachePolicy = KeyCachePolicy(),
                    authKey: String?, secret: String, auditLog: String?, templatesEndpoint: String? = nil, http: HTTPClient = HTTPClient()) {
            self.policy = policy
            self.policyText = policyText
            self.callersPath = callersPath
            self.providers = providers
            self.keyCache = keyCache
            self.authKey = authKey
            self.secret = secret
            self.auditLog = auditLog
            self.templatesEndpoint = templatesEndpoint
            self.http = http
        }
    }

    private let configuration: Configuration
    private let callers: Callers
    /// Each trusted provider's keys, by issuer.
    private let providers: [String: ProviderKeys]
    private let quotas = Quotas()
    private let audit: AuditLog
    private let templates: TemplateDirectory?

    /// Loads callers and keys; diagnostics say what is wrong with either file.
    public init(_ configuration: Configuration, environment: [String: String]) throws(DiagnosticsError) {
        self.configuration = configuration
        let loaded = Callers.load(
            path: configuration.callersPath, defaultPolicy: configuration.policy, environment: environment,
            otherProviders: configuration.providers)
        guard let callers = loaded.value else { throw DiagnosticsError(loaded.diagnostics) }
        self.callers = callers
        var providers: [String: ProviderKeys] = [:]
        // One provider per issuer: the callers file was checked for it.
        for provider in configuration.providers + callers.providers {
            providers[provider.issuer] = try ProviderKeys(provider: provider, http: configuration.http, policy: configuration.keyCache, clock: configuration.clock, log: configuration.log)
        }
        self.providers = providers
        templates = configuration.templatesEndpoint.map { TemplateDirectory(endpoint: $0, http: configuration.http, secret: configuration.secret) }
        do { audit = try AuditLog(path: configuration.auditLog) } catch { throw DiagnosticsError(.error("signer.audit-log", "\(error)")) }
    }

    /// Routes `POST /sign`, `GET /policy` and `GET /healthz`.
    public func plan(_ head: RequestHead) -> RequestPlan {
        switch (head.method, head.path) {
        case ("POST", "/sign"):
            let authorization = head.headers["Authorization"]
            return .collect(limit: 1 << 20) { [self] body in sign(body, authorization: authorization) }
        case ("GET", "/policy"):
            return .respond(ServerResponse(status: 200, headers: [("Content-Type", "application/yaml; charset=utf-8")], body: .data(Data(configuration.policyText.utf8))))
        case ("GET", "/healthz"):
            return .respond(.json(200, #"{"ok":true}"#))
        default:
            return .respond(.json(404, Refusal(status: 404, code: .notFound, message: "no such endpoint").body))
        }
    }

    private func sign(_ body: Data, authorization: String?) -> ServerResponse {
        var attempt = Attempt()
        var params: String?
        do {
            try authenticate(authorization, into: &attempt)
            let request: JSONValue
            do { request = try JSONValue.parse(body) } catch { throw Refusal.unreadable(error, what: "the request body") }
            let text: String
            do { text = try JSONValueDecoder.decode(SignerRequest.self, from: request).params } catch {
                throw Refusal(status: 400, code: .malformedRequest, message: "send {\"params\": \"<the exact params string>\"} as JSON")
            }
            params = text
            guard let who = attempt.caller else { throw Refusal.unauthorized(.noToken, "no caller") }
            // A caller out of quota causes no work (such as a Template lookup) before it is told so.
            if let wait = quotas.wait(who.name, quota: who.quota) {
                throw Refusal(status: 429, code: .quotaExceeded, message: "\(who.name) has used its quota; retry in \(wait) s", retryIn: wait)
            }
            try check(text, for: who)
            if let wait = quotas.admit(who.name, quota: who.quota) {
                throw Refusal(status: 429, code: .quotaExceeded, message: "\(who.name) has used its quota; retry in \(wait) s", retryIn: wait)
            }
            let signature = Signature.sign(text, secret: configuration.secret)
            audit.record(attempt, decision: "signed", status: 200, violations: [], params: text)
            return .json(200, SignerDocuments.text(SignerAnswer(params: text, signature: signature)))
        } catch let refusal as Refusal {
            audit.record(attempt, decision: "refused", status: refusal.status,
                         violations: SignerDocuments.audited(refusal.violations, code: refusal.code), params: params)
            var headers: [(name: String, value: String)] = []
            if refusal.status == 401 { headers.append(("WWW-Authenticate", "Bearer")) }
            if let wait = refusal.retryIn { headers.append(("Retry-After", String(wait))) }
            return .json(refusal.status, refusal.body, headers: headers)
        } catch {
            return .json(500, Refusal(status: 500, code: .`internal`, message: "the request could not be handled").body)
        }
    }

    /// Who is asking: a static caller by its token, or an identity by its JWT. What is learnt on
    /// the way (provider, subject) stays in `attempt` for the audit log, even when refused.
    private func authenticate(_ header: String?, into attempt: inout Attempt) throws(Refusal) {
        guard let header, header.lowercased().hasPrefix("bearer "), !header.dropFirst(7).trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .unauthorized(.noToken, "send 'Authorization: Bearer <token>'")
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        // A static token may contain dots too: a known one is never read as a JWT.
        if let caller = callers.caller(token: token) {
            attempt.caller = caller
            return
        }
        if token.split(separator: ".", omittingEmptySubsequences: false).count == 3, !providers.isEmpty {
            attempt.caller = try identity(of: JWT(token), into: &attempt)
            return
        }
        guard let caller = callers.caller(token: token) else { throw .unauthorized(.invalidToken, "the token is not known") }
        attempt.caller = caller
    }

    /// The identity a JWT proves: its issuer names the provider, whose keys check it.
    private func identity(of token: JWT, into attempt: inout Attempt) throws(Refusal) -> Callers.Caller {
        try JWTVerifier.checkAlgorithm(of: token)
        guard let issuer = token.issuer, let keys = providers[issuer] else {
            throw .unauthorized(.wrongIssuer, "the JWT's issuer \(token.issuer.map { "'\($0)'" } ?? "(none)") is not a provider this signer trusts")
        }
        let provider = keys.provider
        attempt.provider = provider.name
        let known = try keys.keys(for: token.keyID)
        guard known.contains(keyID: token.keyID) else {
            if let kid = token.keyID, known.weakKeyIDs.contains(kid) {
                throw .unauthorized(.weakKey, "the JWT names the key '\(kid)', an RSA key under \(JSONWebKeys.minimumRSABits) bits, which the signer does not use")
            }
            throw .unauthorized(.unknownKey, "the JWT names the key '\(token.keyID ?? "")', which provider '\(provider.name)' does not list")
        }
        try JWTVerifier.verify(token, keys: known, issuer: provider.issuer, audiences: provider.audiences)
        // Only a verified token's subject is logged: an unverified one could write anything there.
        attempt.subject = token.subject
        guard let identity = callers.identity(claims: token.claims, provider: provider.name) else {
            throw .unauthorized(.noMatchingIdentity, "no identity rule matches this token's claims")
        }
        return identity
    }

    /// Every way `text` is not signable for `caller`; throws 400 for non-params and 403 for violations.
    private func check(_ text: String, for caller: Callers.Caller, now: Date = Date()) throws(Refusal) {
        let params: JSONValue
        do { params = try JSONValue.parse(Data(text.utf8)) } catch { throw Refusal.unreadable(error, what: "params") }
        guard params.objectValue != nil else {
            throw Refusal(status: 400, code: .invalidParams, message: "params must be a JSON object of Assembly Instructions")
        }
        var violations: [SignerRefusal.Violation] = []
        func violation(_ id: String, _ message: String, _ path: [String]) {
            violations.append(.init(id: id, message: message, path: path.joined(separator: ".")))
        }
        let key = configuration.authKey ?? caller.policy.authKey
        if let key, params["auth"]?["key"]?.stringValue != key { violation("signer.auth-key", "auth.key is not the configured Auth Key", ["auth", "key"]) }
        var lifetime: Duration?
        if let text = params["auth"]?["expires"]?.stringValue, let expires = AuthParams.parseExpires(text) {
            if expires <= now { violation("signer.expired", "auth.expires (\(text)) is in the past", ["auth", "expires"]) }
            lifetime = .seconds(max(0, Int64(expires.timeIntervalSince(now).rounded(.down))))
        } else {
            violation("signer.no-expires", "auth.expires is missing or not a date", ["auth", "expires"])
        }
        var policy = caller.policy
        policy.authKey = nil
        // A template_id the policy lists by name: looked up on the service, then checked by the
        // Template's name and content, as plan checks a manifest's Template.
        var template: NamedTemplate?
        if violations.isEmpty, let templates, let key = params["auth"]?["key"]?.stringValue {
            template = try policy.templateToJudge(for: params) { id throws(Refusal) in
                let found = try templates.template(id: id, authKey: key)
                return NamedTemplate(name: found.name, content: found.content)
            }
        }
        for finding in policy.check(AssemblyRequest(params: params, lifetime: lifetime, template: template)) {
            violation(finding.id, finding.message, finding.path)
        }
        guard violations.isEmpty else {
            throw Refusal(status: 403, code: .policyViolation, message: "the policy does not allow these params", violations: violations)
        }
    }
}
