import Basics
import Crypto
import Foundation
import Spec
import Wire
import YAML

/// Who may ask for signatures: static callers (by the SHA-256 of their token; the token itself
/// is never stored) and identities (JWT claims that must all match), each with a policy and a
/// quota of signatures per window.
struct Callers: Sendable {
    struct Caller: Sendable {
        var name: String
        var tokenSHA256: String?
        var claims: [String: String]
        var policy: Policy
        var quota: (count: Int, window: TimeInterval)?
    }

    var tokens: [Caller] = []
    var identities: [Caller] = []

    /// The static caller whose token this is (compared in constant time over every entry).
    func caller(token: String) -> Caller? {
        let hash = SHA256.hex(token)
        var found: Caller?
        for caller in tokens {
            if let expected = caller.tokenSHA256, Signature.constantTimeEquals(expected, hash) { found = caller }
        }
        return found
    }

    /// The first identity whose claim rules all match.
    func identity(claims: [String: JSONValue]) -> Caller? {
        identities.first { identity in
            identity.claims.allSatisfy { key, value in claims[key]?.stringValue == value }
        }
    }


    /// Reads a callers file; `defaultPolicy` applies where an entry names none.
    static func load(path: String, defaultPolicy: Policy, environment: [String: String]) -> Loaded<Callers> {
        let document = YAMLDocument(contentsOf: path, domain: "callers")
        guard document.diagnostics.isEmpty, let root = document.root else {
            let empty = document.root == nil && document.diagnostics.isEmpty
                ? [Diagnostic.error("callers.empty", "the callers file is empty", at: SourceLocation(file: path, line: 1, column: 1))] : []
            return Loaded(value: nil, diagnostics: document.diagnostics + empty, sources: document.sources)
        }
        let decoder = NodeDecoder(environment: environment, domain: "callers", sources: document.sources)
        var callers = Callers()
        var sources = document.sources
        if let fields = decoder.fields(root, what: "the callers file", allowed: ["version", "callers", "identities"], required: ["version"]) {
            for (key, isIdentity) in [("callers", false), ("identities", true)] {
                for node in fields[key]?.elements ?? [] {
                    let allowed = isIdentity ? ["name", "claims", "policy", "quota"] : ["name", "token_sha256", "policy", "quota"]
                    guard let entry = decoder.fields(node, what: "an entry of '\(key)'", allowed: allowed,
                                                     required: isIdentity ? ["name", "claims"] : ["name", "token_sha256"]) else { continue }
                    guard let name = entry["name"].flatMap({ decoder.nonEmptyString($0, what: "'name'") })?.value else { continue }
                    var caller = Caller(name: name, tokenSHA256: nil, claims: [:], policy: defaultPolicy, quota: nil)
                    if let node = entry["token_sha256"], let hash = decoder.string(node, what: "'token_sha256'") {
                        guard hash.value.count == 64, hash.value.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                            decoder.report(.error("callers.bad-hash", "'token_sha256' must be 64 lowercase hex digits", at: node.location,
                                                  hint: "store the SHA-256 of the token, such as: printf %s \"$TOKEN\" | sha256sum"))
                            continue
                        }
                        caller.tokenSHA256 = hash.value
                    }
                    if let node = entry["claims"], let pairs = decoder.entries(node, what: "'claims'") {
                        for pair in pairs { caller.claims[pair.keyText] = decoder.string(pair.value, what: "claim '\(pair.keyText)'", acceptingNumbers: true)?.value }
                    }
                    if let node = entry["policy"], let file = decoder.nonEmptyString(node, what: "'policy'") {
                        let folder = (path as NSString).deletingLastPathComponent
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
                    if isIdentity { callers.identities.append(caller) } else { callers.tokens.append(caller) }
                }
            }
        }
        let diagnostics = decoder.diagnostics
        return Loaded(value: diagnostics.containsErrors ? nil : callers, diagnostics: diagnostics, sources: sources)
    }
}
