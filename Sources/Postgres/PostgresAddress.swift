import Foundation

/// Where a Postgres database is, parsed from `postgres://user:password@host:port/database?sslmode=...`
/// (or `postgresql://`). Its `description` is `redacted`: the password never leaves it but to libpq.
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user to log in as; libpq's default (the system user's name) when nil.
    public let user: String?
    /// The password, for libpq only.
    let password: String?
    /// A host name, an IP address, or a folder holding the server's Unix socket (starting with `/`).
    public let host: String
    /// The port (5432 unless the URL says).
    public let port: Int
    /// The database's name.
    public let database: String
    /// libpq's `sslmode` (`disable`, `allow`, `prefer`, `require`, `verify-ca`, `verify-full`), when given.
    public let sslMode: String?
    /// How long a connection may take to be made, in whole seconds (libpq's `connect_timeout`; at least 2).
    public let connectTimeout: Int

    /// The parameters a URL may carry.
    static let parameters = ["sslmode", "connect_timeout"]
    /// What a valid URL looks like, for errors.
    static let example = "postgres://USER:PASSWORD@HOST:5432/DATABASE?sslmode=require"
    private static let sslModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// Parses `text`; the error says what is wrong and shows an example, never the text itself
    /// (which may hold a password).
    public init(parsing text: String) throws(PostgresError) {
        let lowered = text.lowercased()
        guard let scheme = ["postgres://", "postgresql://"].first(where: { lowered.hasPrefix($0) }) else {
            throw Self.invalid("it does not start with postgres:// or postgresql://")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw Self.invalid("it names no database (add /DATABASE after the host)") }
        let authority = rest[..<slash]
        let path = rest[rest.index(after: slash)...]
        // The last @ ends the user and password, which may hold an @ of their own.
        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
            let colon = credentials.firstIndex(of: ":")
            let userText = colon.map { credentials[..<$0] } ?? credentials
            user = try Self.decoded(userText, "the user")
            if let colon {
                password = try Self.decoded(credentials[credentials.index(after: colon)...], "the password")
            } else {
                password = nil
            }
        } else {
            user = nil
            password = nil
        }
        (host, port) = try Self.hostAndPort(hostAndPort)
        database = try Self.decoded(path, "the database name") ?? ""
        guard !database.isEmpty, !database.contains("/") else {
            throw Self.invalid(database.isEmpty ? "it names no database (add /DATABASE after the host)" : "the database name holds a /")
        }
        var sslMode: String?
        var connectTimeout = 10
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count == 2 ? String(parts[1]) : ""
            switch parts[0] {
            case "sslmode":
                guard Self.sslModes.contains(value) else {
                    throw Self.invalid("sslmode must be one of \(Self.sslModes.joined(separator: ", "))")
                }
                sslMode = value
            case "connect_timeout":
                guard let seconds = Int(value), (1...3600).contains(seconds) else {
                    throw Self.invalid("connect_timeout must be a number of seconds from 1 to 3600")
                }
                connectTimeout = max(seconds, 2)
            default:
                throw Self.invalid("it has a parameter this program does not know (it knows \(Self.parameters.joined(separator: ", ")))")
            }
        }
        self.sslMode = sslMode
        self.connectTimeout = connectTimeout
    }

    /// The URL with the password replaced by `***`: what every message and description shows.
    public var redacted: String {
        var text = "postgres://"
        if let user { text += Self.encoded(user) }
        if password != nil { text += ":***" }
        if user != nil || password != nil { text += "@" }
        text += host.contains(":") ? "[\(host)]" : Self.encoded(host)
        text += ":\(port)/\(Self.encoded(database))"
        var parameters: [String] = []
        if let sslMode { parameters.append("sslmode=\(sslMode)") }
        if connectTimeout != 10 { parameters.append("connect_timeout=\(connectTimeout)") }
        if !parameters.isEmpty { text += "?" + parameters.joined(separator: "&") }
        return text
    }

    /// The redacted URL.
    public var description: String { redacted }

    /// The redacted URL.
    public var debugDescription: String { redacted }

    /// The redacted URL alone, so `dump` shows no password either.
    public var customMirror: Mirror { Mirror(self, children: ["url": redacted]) }

    /// `text` with the password replaced by `***` wherever it appears (for messages from libpq).
    func scrubbed(_ text: String) -> String {
        guard let password, !password.isEmpty else { return text }
        return text.replacingOccurrences(of: password, with: "***")
    }

    /// The host and port of `text`: `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func hostAndPort(_ text: Substring) throws(PostgresError) -> (String, Int) {
        var hostText = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid("an IPv6 host lacks its closing ]") }
            hostText = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("an IPv6 host is followed by something other than :PORT") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let host = try decoded(hostText, "the host"), !host.isEmpty else {
            throw invalid("it names no host (add one after //, or after @ when there is a user)")
        }
        guard let portText else { return (host, 5432) }
        guard let port = Int(portText), (1...65535).contains(port) else { throw invalid("the port must be a number from 1 to 65535") }
        return (host, port)
    }

    /// `text` with its %XX escapes decoded; nil for an empty text.
    private static func decoded(_ text: Substring, _ what: String) throws(PostgresError) -> String? {
        guard !text.isEmpty else { return nil }
        guard let decoded = String(text).removingPercentEncoding else {
            throw invalid("\(what) has a % that is not followed by two hexadecimal digits (write % itself as %25)")
        }
        guard !decoded.contains("\0") else { throw invalid("\(what) holds %00, which Postgres cannot take") }
        return decoded
    }

    /// `text` with what a URL cannot hold there escaped.
    private static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func invalid(_ reason: String) -> PostgresError {
        PostgresError(kind: .invalidAddress, operation: "read the Postgres URL", message: reason, hint: "write it as \(example)")
    }
}
