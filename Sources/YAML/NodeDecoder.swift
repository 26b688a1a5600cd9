import Basics

/// Reads typed values out of nodes, interpolating the environment and collecting every problem
/// as a located diagnostic instead of stopping at the first.
public final class NodeDecoder {
    /// Everything reported so far, in order.
    public private(set) var diagnostics: [Diagnostic] = []
    /// The variables `${VAR}` refers to.
    public let environment: [String: String]
    /// The first part of diagnostic ids: `manifest`, `policy`.
    public let domain: String
    /// When set, a reference to an unset variable makes the value absent instead of an error.
    public var toleratesUnsetVariables = false
    /// The errors unset variables would have been while they were tolerated, in order: for a
    /// caller that needs those values later (credentials at run time).
    public private(set) var deferred: [Diagnostic] = []

    /// Variables that hold credentials (the Auth Secret, signer tokens): referred to anywhere but
    /// inside `readingCredential`, they are an error that never shows their value, so a secret
    /// cannot end up in a plan, results, a URL or a message.
    public var credentialVariables: Set<String> = []
    /// Variables never interpolated at all, not even where credentials go (the Auth Secret: it
    /// is read by name where it is needed, and never sent to anyone).
    public var secretVariables: Set<String> = []
    /// Whether names that look like credentials (`GITHUB_TOKEN`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`)
    /// count as credential variables too: a blocklist of names can never be complete.
    public var refusesCredentialLikeNames = false
    /// Where credentials go, for the error's hint.
    public var credentialPlaces = "auth.signer.token"
    private var readingCredentials = false
    private var allowsCredentialLikeNames = false

    /// The document's text, to point at the exact column of a `${VAR}` inside a value.
    public let sources: SourceStore

    /// Creates a decoder that interpolates from `environment` and reports ids under `domain`.
    public init(environment: [String: String], domain: String = "manifest", sources: SourceStore = SourceStore()) {
        self.environment = environment
        self.domain = domain
        self.sources = sources
    }

    /// Adds a diagnostic.
    public func report(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    /// Runs `body` with unset variables tolerated (values that need them come back `nil`).
    public func toleratingUnsetVariables<T>(_ body: () -> T) -> T {
        let previous = toleratesUnsetVariables
        toleratesUnsetVariables = true
        defer { toleratesUnsetVariables = previous }
        return body()
    }

    /// Whether `name` is a credential variable: named so, or (with `refusesCredentialLikeNames`) named like one.
    public func isCredential(_ name: String) -> Bool {
        if credentialVariables.contains(name) || secretVariables.contains(name) { return true }
        guard refusesCredentialLikeNames, !allowsCredentialLikeNames else { return false }
        return Self.credentialLike(name)
    }

    /// Names that say they hold a credential: TOKEN, SECRET, PASSWORD, PASSPHRASE, CREDENTIAL,
    /// PRIVATE, JWT, a connection string (DATABASE_URL, …_URI), a word such as PASS, PWD, DSN, AUTH,
    /// SESSION or WEBHOOK, a name ending in _KEY (but TRANSLOADIT_KEY, the Auth Key), or GitHub's
    /// runtime variables (ACTIONS_*). A list of names can never be complete: it covers the usual ones.
    public static func credentialLike(_ name: String) -> Bool {
        let upper = name.uppercased()
        if upper.hasPrefix("ACTIONS_") || upper == "PGPASS" { return true }
        if upper.hasSuffix("_KEY") && upper != "TRANSLOADIT_KEY" { return true }
        let words = upper.split(separator: "_").map(String.init)
        if words.contains(where: { ["PASS", "PWD", "SK", "DSN", "JWT", "BEARER", "COOKIE", "SESSION", "SALT", "CREDS", "AUTH", "WEBHOOK"].contains($0) }), upper != "PWD" {
            return true
        }
        return ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "PRIVKEY", "APIKEY", "JWT", "DATABASE_URL",
                "CONNECTION_STRING", "_URI", "REDIS_URL", "WEBHOOK"].contains { upper.contains($0) }
    }

    /// Runs `body` reading a value that is named like a credential without being one (the Auth
    /// Key, `${TRANSLOADIT_AUTH_KEY}`): only the manifest's real credential variables are refused.
    public func allowingCredentialLikeNames<T>(_ body: () -> T) -> T {
        let previous = allowsCredentialLikeNames
        allowsCredentialLikeNames = true
        defer { allowsCredentialLikeNames = previous }
        return body()
    }

    /// Runs `body` reading a value where credentials belong: credential variables may be used.
    public func readingCredential<T>(_ body: () -> T) -> T {
        let previous = readingCredentials
        readingCredentials = true
        defer { readingCredentials = previous }
        return body()
    }

    /// A scalar's interpolated, resolved value; `nil` (after reporting) when it cannot be had.
    public func resolve(_ node: Node) -> ResolvedScalar? {
        guard let scalar = node.scalar, let text = interpolatedText(node) else { return nil }
        return Scalar(text, style: scalar.style).resolved(tag: node.tag)
    }

    /// A scalar's text with environment references replaced; `nil` (after reporting) on failure.
    public func interpolatedText(_ node: Node) -> String? {
        guard let scalar = node.scalar else { return nil }
        for name in Interpolation.referencedVariables(in: scalar.text) {
            let secret = secretVariables.contains(name)
            guard secret || !readingCredentials && isCredential(name) else { continue }
            report(.error(
                "\(domain).credential-variable",
                secret ? "'${\(name)}' is the Auth Secret, which a manifest never names: it is read from the environment by the signer that needs it"
                    : "'${\(name)}' holds a credential (or is named like one), which may only be used in \(credentialPlaces)",
                at: location(of: "${" + name, in: node),
                hint: secret ? "remove it" : "a credential here would be written into plans, results, URLs or messages; remove it, or if the value is not secret, rename the variable"))
            return nil
        }
        switch Interpolation.expand(scalar.text, environment: environment) {
        case .text(let text):
            return text
        case .unset(let name, _):
            let problem = Diagnostic.error(
                "\(domain).unset-variable", "environment variable '\(name)' is not set",
                at: location(of: "${" + name, in: node),
                hint: isCredential(name) || Self.credentialLike(name) ? "set \(name) in the environment (a credential has no default in a manifest)"
                    : "set \(name) in the environment, or give a default with '${\(name):-value}'")
            if toleratesUnsetVariables { deferred.append(problem) } else { report(problem) }
            return nil
        case .malformed(let reason, _):
            report(.error(
                "\(domain).bad-interpolation", reason, at: location(of: "${", in: node),
                hint: "write '${NAME}' or '${NAME:-default}'; use '$$' for a literal '$'"))
            return nil
        }
    }

    /// Where `needle` is written inside `node`: searched in the source from the node's start, so
    /// escapes, quotes and folded lines cannot throw the column off. Falls back to the node.
    private func location(of needle: String, in node: Node) -> SourceLocation {
        var line = node.location.line
        var skip = node.location.column - 1
        while let text = sources.line(line, in: node.location.file), line < node.location.line + 64 {
            let searched = text.dropFirst(skip)
            if let range = searched.range(of: needle) {
                let column = text.distance(from: text.startIndex, to: range.lowerBound) + 1
                return SourceLocation(file: node.location.file, line: line, column: column)
            }
            line += 1
            skip = 0
        }
        return estimatedLocation(of: needle, in: node)
    }

    /// Without the source text: the needle's offset in the value, exact for single-line values
    /// without escapes.
    private func estimatedLocation(of needle: String, in node: Node) -> SourceLocation {
        guard let scalar = node.scalar, !scalar.text.contains("\n"), let range = scalar.text.range(of: needle),
              [.plain, .singleQuoted, .doubleQuoted].contains(scalar.style) else { return node.location }
        var location = node.location
        location.column += (scalar.style == .plain ? 0 : 1) + scalar.text.distance(from: scalar.text.startIndex, to: range.lowerBound)
        return location
    }

    /// Reports that `node` should have been `expected`.
    public func typeMismatch(_ node: Node, expected: String, what: String, hint: String? = nil) {
        report(.error(
            "\(domain).wrong-type", "\(what) must be \(expected), found \(describe(node))",
            at: node.location, hint: hint))
    }

    /// What a node holds, after interpolation, for messages.
    private func describe(_ node: Node) -> String {
        guard let scalar = node.scalar, case .text(let text) = Interpolation.expand(scalar.text, environment: environment) else {
            return node.kindDescription
        }
        return Node(.scalar(Scalar(text, style: scalar.style)), at: node.location, tag: node.tag).kindDescription
    }
}
