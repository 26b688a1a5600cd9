/// What went wrong with Postgres: the operation (a statement's first words, never its
/// parameters), the server's SQLSTATE, message, detail and hint, and the redacted address of the
/// server when one was involved. No password ever appears in it.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller may treat differently.
    public enum Kind: Sendable, Equatable {
        /// libpq is not installed.
        case libraryMissing
        /// A `postgres://` URL that cannot be used.
        case invalidAddress
        /// A connection could not be made.
        case connect
        /// The server refused a statement (see `sqlState`), or a statement could not be sent.
        case statement
        /// The connection broke during a statement: it is no longer usable.
        case connectionLost
        /// The connection was closed by `close()` (or its pool was).
        case closed
        /// A result read as it cannot be: a column it lacks, a row past its end, text that is no number.
        case result
        /// The database's schema is not one this build can use.
        case schema
    }

    /// Which kind of failure.
    public var kind: Kind
    /// What was being done: `connect`, a statement's first words (`INSERT INTO uploads`), ...
    public var operation: String
    /// The SQLSTATE the server gave (`23505` a unique violation, `40001` a serialization failure).
    public var sqlState: String?
    /// The server's (or libpq's) message.
    public var message: String
    /// The server's detail, when it gave one (for a unique violation it quotes the key).
    public var detail: String?
    /// How to fix it: the server's hint, or ours.
    public var hint: String?
    /// The server's address, its password replaced by `***`.
    public var address: String?

    /// An error of `kind` in `operation`.
    public init(
        kind: Kind, operation: String, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil,
        address: String? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.address = address
    }

    /// One line: the operation and where, the message and SQLSTATE, then detail and hint.
    public var description: String {
        var text = operation
        if let address { text += " on \(address)" }
        text += ": \(message)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += "; \(detail)" }
        if let hint { text += "; \(hint)" }
        return text
    }

    /// The first words of `sql` that name what it does (`INSERT INTO uploads`, `SELECT
    /// pg_notify`), up to three, stopping at a quote, a parenthesis or a comma so no literal is shown.
    static func operation(of sql: String) -> String {
        var words: [String] = []
        for word in sql.split(whereSeparator: { $0.isWhitespace }) {
            let kept = word.prefix { !"'\"(,;$".contains($0) }
            if !kept.isEmpty { words.append(String(kept.prefix(48))) }
            if kept.count < word.count || words.count == 3 { break }
        }
        return words.isEmpty ? "an empty statement" : words.joined(separator: " ")
    }
}
