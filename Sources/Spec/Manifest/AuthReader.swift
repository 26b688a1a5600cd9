import Basics
import YAML

/// Decodes `auth:`; refuses anything that looks like an Auth Secret written into the manifest.
struct AuthReader {
    static let keys = ["key", "expires_in", "signer"]
    static let signerKeys = ["url", "token", "command", "timeout", "secret_env"]

    let decoder: NodeDecoder
    let requiresCredentials: Bool

    /// Variables that always hold credentials: the Auth Secret and GitHub's identity-token request token.
    static let credentialVariables: Set<String> = ["TRANSLOADIT_SECRET", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"]

    /// The Auth Secret's variables: `TRANSLOADIT_SECRET` and the one `secret_env` names, which no
    /// value of a manifest may interpolate (not even a signer token: the secret is never sent).
    static func secretVariables(in root: Node) -> Set<String> {
        let signer = root.pairs?.first { $0.keyText == "auth" }?.value.pairs?.first { $0.keyText == "signer" }?.value.pairs ?? []
        let named = signer.first { $0.keyText == "secret_env" }?.value.scalar?.text
        return Set(["TRANSLOADIT_SECRET"] + (named.map { [$0] } ?? []))
    }

    /// The variables a manifest's tree names as credentials: those above, the signer token's
    /// variables, the variable of an identity token, and `secret_env`. Read before anything is
    /// decoded, so no other value can use them whatever order the manifest is written in.
    static func credentialVariables(in root: Node) -> Set<String> {
        var names = credentialVariables
        let signer = root.pairs?.first { $0.keyText == "auth" }?.value.pairs?.first { $0.keyText == "signer" }?.value.pairs ?? []
        for pair in signer {
            switch pair.keyText {
            case "token":
                if let text = pair.value.scalar?.text { names.formUnion(Interpolation.referencedVariables(in: text)) }
                if let variable = pair.value.pairs?.first(where: { $0.keyText == "variable" })?.value.scalar?.text { names.insert(variable) }
            case "secret_env":
                if let variable = pair.value.scalar?.text { names.insert(variable) }
            default:
                break
            }
        }
        return names
    }

    func read(_ node: Node) -> AuthSettings? {
        if let pairs = node.pairs {
            for pair in pairs where pair.keyText.lowercased().contains("secret") {
                decoder.report(.error(
                    "manifest.secret-in-manifest", "'auth' must not contain the Auth Secret ('\(pair.keyText)')",
                    at: pair.key.location,
                    hint: "remove it; the secret comes from $TRANSLOADIT_SECRET or a signer ('auth.signer')").withoutSource())
            }
        }
        let allowed = Self.keys + (node.pairs ?? []).map(\.keyText).filter { $0.lowercased().contains("secret") }
        guard let fields = decoder.fields(node, what: "'auth'", allowed: allowed) else { return nil }
        var settings = AuthSettings()
        let deferredBefore = decoder.deferred.count
        if let keyNode = fields["key"] {
            settings.key = credential { decoder.allowingCredentialLikeNames { decoder.nonEmptyString(keyNode, what: "'auth.key'") } }
            if let key = settings.key, Self.looksLikeSecret(key.value), keyNode.scalar?.text == key.value {
                decoder.report(.error(
                    "manifest.secret-in-manifest", "'auth.key' looks like an Auth Secret (40 hexadecimal characters)",
                    at: keyNode.location, hint: "write the Auth Key as '${TRANSLOADIT_KEY}' and keep the secret out of the manifest").withoutSource())
            }
        }
        settings.expiresIn = fields["expires_in"].flatMap { decoder.duration($0, what: "'auth.expires_in'") }
        settings.signer = fields["signer"].flatMap(readSigner)
        settings.unresolved = unresolved(since: deferredBefore)
        return settings
    }

    /// A credential's value; unset while planning is fine, and what it would cost is kept for run time.
    private func credential<T>(_ body: () -> T?) -> T? {
        requiresCredentials ? body() : decoder.toleratingUnsetVariables(body)
    }

    /// The unset-variable errors of the credentials read so far (see `AuthSettings.unresolved`).
    private func unresolved(since count: Int) -> [Diagnostic] { Array(decoder.deferred.dropFirst(count)) }

    private func readSigner(_ node: Node) -> Located<SignerSettings>? {
        guard let fields = decoder.fields(node, what: "'auth.signer'", allowed: Self.signerKeys) else { return nil }
        let kinds = ["url", "command", "secret_env"].filter { fields[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first, let value = fields[kind] else {
            decoder.report(.error(
                "manifest.bad-signer", "'auth.signer' needs exactly one of 'url', 'command' or 'secret_env'",
                at: node.location, hint: "for example 'url: https://signer.example.com/sign' with 'token: ${SIGNER_TOKEN}'"))
            return nil
        }
        switch kind {
        case "url":
            guard let url = decoder.nonEmptyString(value, what: "'auth.signer.url'") else { return nil }
            guard SecureURL.allowsSecrets(url.value) else {
                decoder.report(.error(
                    "manifest.insecure-signer", "'auth.signer.url' must use https", at: value.location,
                    hint: "a bearer token must not travel in clear text; only http://127.0.0.1 and http://localhost may use http"))
                return nil
            }
            rejectStray(fields, keys: ["timeout"], kind: "url")
            let token = fields["token"].flatMap(readToken)
            return Located(.url(url.value, token: token), at: node.location)
        case "command":
            rejectStray(fields, keys: ["token"], kind: "command")
            guard let arguments = decoder.stringList(value, what: "'auth.signer.command'") else { return nil }
            if arguments.isEmpty || (value.scalar != nil && arguments[0].value.contains(where: \.isWhitespace)) {
                decoder.report(.error(
                    "manifest.bad-signer", "'auth.signer.command' must be a program and its arguments, as a list",
                    at: value.location, hint: "for example 'command: [vault-sign, --key, transloadit]'"))
                return nil
            }
            let timeout = fields["timeout"].flatMap { decoder.duration($0, what: "'auth.signer.timeout'") }
            return Located(.command(arguments: arguments.map(\.value), timeout: timeout?.value), at: node.location)
        default:
            rejectStray(fields, keys: ["token", "timeout"], kind: "secret_env")
            guard let variable = decoder.nonEmptyString(value, what: "'auth.signer.secret_env'") else { return nil }
            guard Interpolation.isVariableName(variable.value) else {
                decoder.report(.error(
                    "manifest.bad-signer", "'\(variable.value)' is not an environment variable name", at: value.location,
                    hint: "name the variable that holds the secret, such as TRANSLOADIT_SECRET, without '$'"))
                return nil
            }
            return Located(.secret(variable: variable.value), at: node.location)
        }
    }

    /// `token: ${SIGNER_TOKEN}`, or a mapping that asks for an identity token:
    /// `{oidc: github, audience: AUD}`, `{oidc: gitlab, variable: NAME}`, `{oidc: env, variable: NAME}`.
    private func readToken(_ node: Node) -> SignerToken? {
        guard node.pairs != nil else {
            return credential { decoder.readingCredential { decoder.nonEmptyString(node, what: "'auth.signer.token'") } }.map { .value($0.value) }
        }
        guard let fields = decoder.fields(node, what: "'auth.signer.token'", allowed: ["oidc", "audience", "variable"], required: ["oidc"]),
              let kindNode = fields["oidc"], let kind = decoder.nonEmptyString(kindNode, what: "'auth.signer.token.oidc'") else { return nil }
        switch kind.value {
        case "github":
            guard let audienceNode = fields["audience"] else {
                decoder.report(.error("manifest.bad-signer", "an identity token from GitHub needs 'audience'", at: node.location,
                                      hint: "the audience the signer's provider accepts, such as 'audience: pipeline-signer'"))
                return nil
            }
            if let stray = fields.keyNode("variable") {
                decoder.report(.error("manifest.bad-signer", "'variable' does not apply to GitHub identity tokens", at: stray.location,
                                      hint: "GitHub's token is requested from the job's token endpoint; remove 'variable'"))
            }
            return decoder.nonEmptyString(audienceNode, what: "'audience'").map { .identity(.github(audience: $0.value)) }
        case "gitlab", "env":
            guard let variableNode = fields["variable"], let variable = decoder.nonEmptyString(variableNode, what: "'variable'") else {
                decoder.report(.error("manifest.bad-signer", "an identity token from '\(kind.value)' needs 'variable': the variable that holds it",
                                      at: node.location, hint: kind.value == "gitlab" ? "the name under the job's 'id_tokens', such as 'variable: SIGNER_ID_TOKEN'" : nil))
                return nil
            }
            guard Interpolation.isVariableName(variable.value) else {
                decoder.report(.error("manifest.bad-signer", "'\(variable.value)' is not an environment variable name", at: variableNode.location,
                                      hint: "name the variable without '$'"))
                return nil
            }
            if let stray = fields.keyNode("audience") {
                decoder.report(.error("manifest.bad-signer", "'audience' does not apply to a token read from a variable", at: stray.location,
                                      hint: kind.value == "gitlab" ? "set 'aud' under the job's id_tokens in .gitlab-ci.yml" : "remove it"))
            }
            return .identity(.variable(variable.value))
        default:
            decoder.report(.error("manifest.bad-signer", "'oidc' must be github, gitlab or env, not '\(kind.value)'", at: kindNode.location,
                                  hint: Suggestions.hint(for: kind.value, in: ["github", "gitlab", "env"], kind: "values")))
            return nil
        }
    }

    private func rejectStray(_ fields: Fields, keys: [String], kind: String) {
        for key in keys {
            guard let stray = fields.keyNode(key) else { continue }
            decoder.report(.error(
                "manifest.bad-signer", "'\(key)' does not apply to a '\(kind)' signer", at: stray.location,
                hint: key == "token" ? "'token' goes with 'url'" : "'timeout' goes with 'command'"))
        }
    }

    /// 40 hexadecimal characters: the shape of a Transloadit Auth Secret.
    static func looksLikeSecret(_ text: String) -> Bool {
        text.count == 40 && text.allSatisfy(\.isHexDigit)
    }
}
