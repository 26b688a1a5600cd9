import Foundation
import CPostgres

extension PostgresError {
    /// The error of a failed statement: the server's fields from `result`, else the connection's
    /// message; `connectionLost` when the connection broke on the way.
    static func failed(
        _ operation: String, result: OpaquePointer?, connection: OpaquePointer, address: PostgresAddress
    ) -> PostgresError {
        func field(_ code: Int) -> String? {
            pipeline_pq_error_field(result, Int32(code)).map { address.scrubbed(String(cString: $0)) }
        }
        let lost = Int(pipeline_pq_status(connection)) != PIPELINE_PQ_CONNECTION_OK
        let message = field(PIPELINE_PQ_FIELD_MESSAGE) ?? address.scrubbed(oneLine(String(cString: pipeline_pq_error(connection))))
        return PostgresError(
            kind: lost ? .connectionLost : .statement, operation: operation, sqlState: field(PIPELINE_PQ_FIELD_SQLSTATE),
            message: message.isEmpty ? "the server gave no answer" : message, detail: field(PIPELINE_PQ_FIELD_DETAIL),
            hint: field(PIPELINE_PQ_FIELD_HINT)
                ?? (lost ? "the server ended the connection (it restarted, or the session was ended); a pool replaces it on next use" : nil),
            address: address.redacted)
    }

    /// A failed connection's error: libpq's message and what to check for it.
    static func connectFailed(_ message: String, address: PostgresAddress) -> PostgresError {
        let message = address.scrubbed(oneLine(message))
        let lowered = message.lowercased()
        let place = address.host.hasPrefix("/") ? "its socket in \(address.host) (port \(address.port))" : "\(address.host) port \(address.port)"
        let hint: String
        if lowered.contains("password") || lowered.contains("authentication") {
            hint = "check the user and password in the URL (percent-encode : @ / ? # in them)"
        } else if lowered.contains("database") && lowered.contains("does not exist") {
            hint = "create the database (createdb \(address.database)) or name an existing one in the URL"
        } else if lowered.contains("timeout") {
            hint = "nothing answered within \(address.connectTimeout) s: check the host, the port and any firewall between"
        } else if lowered.contains("ssl") {
            hint = "check the URL's sslmode against what the server offers"
        } else if lowered.contains("refused") || lowered.contains("no such file") {
            hint = "is Postgres running and listening on \(place)? Start it, or correct the host and port in the URL"
        } else {
            hint = "check that Postgres runs on \(place) and the URL's user, password and database"
        }
        return PostgresError(kind: .connect, operation: "connect", message: message, hint: hint, address: address.redacted)
    }

    /// The error of using a connection after `close()`.
    static func closed(_ operation: String, address: PostgresAddress) -> PostgresError {
        PostgresError(
            kind: .closed, operation: operation, message: "the connection is closed",
            hint: "make a new connection (a pool makes one itself)", address: address.redacted)
    }

    /// libpq's message of several lines as one: a line indented with a tab goes on the one before
    /// (after a space when it continues a sentence, a semicolon when it starts another).
    static func oneLine(_ text: String) -> String {
        var joined = ""
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.trimmingCharacters(in: .whitespaces)
            guard !words.isEmpty else { continue }
            if !joined.isEmpty { joined += line.hasPrefix("\t") && words.first?.isLowercase == true ? " " : "; " }
            joined += words
        }
        return joined
    }
}
