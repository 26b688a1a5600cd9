import Basics
import YAML

/// Decodes `auth:`; refuses anything that looks like an Auth Secret written into the manifest.
struct AuthReader {
    static let keys = ["key", "expires_in", "signer"]
    static let signerKeys = ["url", "token", "command", "timeout", "secret_env"]

    let decoder: NodeDecoder
    let requiresCredentials: Bool

    func read(_ node: Node) -> AuthSettings? {
        if let pairs = node.pairs {
            for pair in pairs where pair.keyText.lowercased().contains("secret") {
                decoder.report(.error(
                    "manifest.secret-in-manifest", "'auth' must not contain the Auth Secret ('\(pair.keyText)')",
                    at: pair.key.location,
                    hint: "remove it; the secret comes from $TRANSLOADIT_SECRET or a signer ('auth.signer')"))
            }
        }
        let allowed = Self.keys + (node.pairs ?? []).map(\.keyText).filter { $0.lowercased().contains("secret") }
        guard let fields = decoder.fields(node, what: "'auth'", allowed: allowed) else { return nil }
        var settings = AuthSettings()
        let deferredBefore = decoder.deferred.count
        if let keyNode = fields["key"] {
            settings.key = credential { decoder.nonEmptyString(keyNode, what: "'auth.key'") }
            if let key = settings.key, Self.looksLikeSecret(key.value), keyNode.scalar?.text == key.value {
                decoder.report(.error(
                    "manifest.secret-in-manifest", "'auth.key' looks like an Auth Secret (40 hexadecimal characters)",
                    at: keyNode.location, hint: "write the Auth Key as '${TRANSLOADIT_KEY}' and keep the secret out of the manifest"))
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
            let token = fields["token"].flatMap { tokenNode in credential { decoder.nonEmptyString(tokenNode, what: "'auth.signer.token'") } }
            return Located(.url(url.value, token: token?.value), at: node.location)
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
