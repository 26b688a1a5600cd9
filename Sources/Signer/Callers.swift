import Basics
import Crypto
import Foundation
import Spec
import Wire
import YAML

/// Who may ask for signatures: static callers (by the SHA-256 of their token; the token itself
/// is never stored) and identities (claim rules that must all match a token of their provider),
/// each with a policy and a quota of signatures per window; and the identity providers trusted.
struct Callers: Sendable {
    struct Caller: Sendable {
        var name: String
        var tokenSHA256: String?
        /// The provider an identity's tokens must come from; nil for any (with one provider).
        var provider: String?
        var claims: [String: ClaimRule]
        var policy: Policy
        var quota: (count: Int, window: TimeInterval)?
    }

    var tokens: [Caller] = []
    var identities: [Caller] = []
    var providers: [IdentityProvider] = []

    /// The static caller whose token this is (compared in constant time over every entry).
    func caller(token: String) -> Caller? {
        let hash = SHA256.hex(token)
        var found: Caller?
        for caller in tokens {
            if let expected = caller.tokenSHA256, Signature.constantTimeEquals(expected, hash) { found = caller }
        }
        return found
    }

    /// The first identity of `provider` (or of any provider) whose claim rules all match.
    func identity(claims: [String: JSONValue], provider: String) -> Caller? {
        identities.first { identity in
            (identity.provider == nil || identity.provider == provider) && identity.claims.allSatisfy { key, rule in rule.matches(claims[key]) }
        }
    }

    /// Reads a callers file; `defaultPolicy` applies where an entry names none; `otherProviders`
    /// are the providers given on the command line, which identities may name too.
    static func load(path: String, defaultPolicy: Policy, environment: [String: String], otherProviders: [IdentityProvider] = []) -> Loaded<Callers> {
        let document = YAMLDocument(contentsOf: path, domain: "callers")
        guard document.diagnostics.isEmpty, let root = document.root else {
            let empty = document.root == nil && document.diagnostics.isEmpty
                ? [Diagnostic.error("callers.empty", "the callers file is empty", at: SourceLocation(file: path, line: 1, column: 1))] : []
            return Loaded(value: nil, diagnostics: document.diagnostics + empty, sources: document.sources)
        }
        let decoder = NodeDecoder(environment: environment, domain: "callers", sources: document.sources)
        var callers = Callers()
        var sources = document.sources
        if let fields = decoder.fields(root, what: "the callers file", allowed: ["version", "providers", "callers", "identities"], required: ["version"]) {
            callers.providers = (fields["providers"]?.elements ?? []).compactMap { ProviderReader(decoder: decoder).provider($0, folder: FolderPath.of(path)) }
            if let node = fields["providers"], node.elements == nil {
                decoder.report(.error("callers.type-mismatch", "'providers' must be a list", at: node.location))
            }
            var names = Set(otherProviders.map(\.name)), issuers = Set(otherProviders.map(\.issuer))
            for (provider, node) in zip(callers.providers, fields["providers"]?.elements ?? []) {
                if !names.insert(provider.name).inserted {
                    decoder.report(.error("callers.duplicate-provider", "the provider name '\(provider.name)' is used twice", at: node.location,
                                          hint: "give each provider its own name"))
                }
                if !issuers.insert(provider.issuer).inserted {
                    decoder.report(.error("callers.duplicate-issuer", "provider '\(provider.name)' has the issuer of another provider (\(provider.issuer))",
                                          at: node.location, hint: "keep one provider per issuer: a token's 'iss' picks its provider"))
                }
            }
            // Identities may name a provider whose entry has errors of its own: those are reported there.
            let known = otherProviders.map(\.name) + (fields["providers"]?.elements ?? []).compactMap { entry in
                entry.pairs?.first { $0.keyText == "name" }?.value.scalar?.text
            }
            var entryNames: Set<String> = []
            for (key, isIdentity) in [("callers", false), ("identities", true)] {
                for node in fields[key]?.elements ?? [] {
                    let allowed = isIdentity ? ["name", "provider", "claims", "policy", "quota"] : ["name", "token_sha256", "policy", "quota"]
                    guard let entry = decoder.fields(node, what: "an entry of '\(key)'", allowed: allowed,
                                                     required: isIdentity ? ["name", "claims"] : ["name", "token_sha256"]) else { continue }
                    guard let name = entry["name"].flatMap({ decoder.nonEmptyString($0, what: "'name'") })?.value else { continue }
                    if !entryNames.insert(name).inserted, let nameNode = entry["name"] {
                        decoder.report(.error("callers.duplicate-name", "the name '\(name)' is used by two callers or identities", at: nameNode.location,
                                              hint: "names tell callers apart in quotas and the audit log: give each its own"))
                    }
                    var caller = Caller(name: name, tokenSHA256: nil, provider: nil, claims: [:], policy: defaultPolicy, quota: nil)
                    if let node = entry["token_sha256"], let hash = decoder.string(node, what: "'token_sha256'") {
                        guard hash.value.count == 64, hash.value.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                            decoder.report(.error("callers.bad-hash", "'token_sha256' must be 64 lowercase hex digits", at: node.location,
                                                  hint: "store the SHA-256 of the token, such as: printf %s \"$TOKEN\" | sha256sum"))
                            continue
                        }
                        caller.tokenSHA256 = hash.value
                    }
                    if let node = entry["provider"], let provider = decoder.nonEmptyString(node, what: "'provider'") {
                        if !known.contains(provider.value) {
                            decoder.report(.error(
                                "callers.unknown-provider", "identity '\(name)' names the provider '\(provider.value)', which is not configured", at: node.location,
                                hint: known.isEmpty ? "list it under 'providers', or start the signer with --jwks, --issuer and --audience"
                                    : Suggestions.hint(for: provider.value, in: known, kind: "providers")))
                        }
                        caller.provider = provider.value
                    }
                    if let node = entry["claims"], let pairs = decoder.entries(node, what: "'claims'") {
                        if pairs.isEmpty {
                            decoder.report(.error("callers.empty-claims", "identity '\(name)' has no claim rules, so it would match every token of its provider",
                                                  at: node.location, hint: "require at least the claims that say who this is, such as repository and ref"))
                        }
                        for pair in pairs {
                            if let rule = ClaimRule.read(pair.value, claim: pair.keyText, decoder: decoder) { caller.claims[pair.keyText] = rule }
                        }
                    }
                    if let node = entry["policy"], let file = decoder.nonEmptyString(node, what: "'policy'") {
                        let folder = FolderPath.of(path)
                        let policyPath = file.value.hasPrefix("/") || folder.isEmpty ? file.value : folder + "/" + file.value
                        let loaded = PolicyLoader(environment: environment).load(path: policyPath)
                        sources.merge(loaded.sources)
                        loaded.diagnostics.forEach(decoder.report)
                        if let policy = loaded.value { caller.policy = policy }
                    }
                    if let node = entry["quota"], let text = decoder.string(node, what: "'quota'") {
                        caller.quota = Quotas.parse(text.value)
                        if caller.quota == nil {
                            decoder.report(.error("callers.bad-quota", "'quota' must be N/DURATION, such as 100/1h", at: node.location))
                        }
                    }
                    if isIdentity, caller.provider == nil, known.count > 1 {
                        decoder.report(.error(
                            "callers.ambiguous-identity", "identity '\(name)' names no provider, and \(known.count) are configured",
                            at: node.location, hint: "add 'provider: NAME': claims such as 'sub' mean different people at different providers"))
                    }
                    if isIdentity { callers.identities.append(caller) } else { callers.tokens.append(caller) }
                }
            }
        }
        let diagnostics = decoder.diagnostics
        return Loaded(value: diagnostics.containsErrors ? nil : callers, diagnostics: diagnostics, sources: sources)
    }
}
