import Basics
import CPostgres
import Foundation

/// A notification sent with NOTIFY (or `pg_notify`) on a channel this connection listens to.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel it was sent on.
    public let channel: String
    /// What it carries (up to 8,000 bytes; empty when nothing).
    public let payload: String
    /// The server process of the session that sent it.
    public let sender: Int32
}

extension PostgresConnection {
    /// Starts listening on `channel` (its name as given: no case folding). A connection that
    /// listens is best kept for that alone, outside a pool, waiting in `notifications`.
    @available(*, noasync, message: "blocks its thread")
    public func listen(_ channel: String) throws(PostgresError) {
        try execute("LISTEN " + (try Self.quotedChannel(channel, "LISTEN")))
    }

    /// Stops listening on `channel`.
    @available(*, noasync, message: "blocks its thread")
    public func unlisten(_ channel: String) throws(PostgresError) {
        try execute("UNLISTEN " + (try Self.quotedChannel(channel, "UNLISTEN")))
    }

    /// Sends `payload` on `channel` (delivered when the transaction it is in commits, at once outside one).
    @available(*, noasync, message: "blocks its thread")
    public func notify(_ channel: String, payload: String = "") throws(PostgresError) {
        _ = try Self.quotedChannel(channel, "NOTIFY")
        try execute("SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// The notifications that came for the channels this connection listens to: at once when some
    /// are queued, else the first to come within `longest`; none when none came. Waits on the
    /// connection's socket (`poll`), taking the connection's turn meanwhile.
    @available(*, noasync, message: "blocks its thread")
    public func notifications(waitingAtMost longest: Duration) throws(PostgresError) -> [PostgresNotification] {
        let deadline = ContinuousClock.now + longest
        return try withHandle("wait for notifications") { connection throws(PostgresError) -> [PostgresNotification] in
            while true {
                guard pipeline_pq_consume_input(connection) != 0 else { throw lost(connection) }
                let found = Self.queued(connection)
                let left = deadline - ContinuousClock.now
                if !found.isEmpty || left <= .zero { return found }
                var waiting = pollfd(fd: pipeline_pq_socket(connection), events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
                if SystemCall.uninterrupted({ poll(&waiting, 1, milliseconds) }) < 0 {
                    throw PostgresError(
                        kind: .connectionLost, operation: "wait for notifications", message: String(cString: strerror(errno)),
                        address: address.redacted)
                }
            }
        }
    }

    /// The notifications libpq has read, in order.
    private static func queued(_ connection: OpaquePointer) -> [PostgresNotification] {
        var found: [PostgresNotification] = []
        while let notification = pipeline_pq_next_notification(connection) {
            let fields = notification.pointee
            found.append(PostgresNotification(
                channel: fields.relname.map { String(cString: $0) } ?? "", payload: fields.extra.map { String(cString: $0) } ?? "",
                sender: fields.be_pid))
            pipeline_pq_free(notification)
        }
        return found
    }

    /// The error of a connection that broke while waiting.
    private func lost(_ connection: OpaquePointer) -> PostgresError {
        PostgresError(
            kind: .connectionLost, operation: "wait for notifications",
            message: address.scrubbed(PostgresError.oneLine(String(cString: pipeline_pq_error(connection)))),
            hint: "the server ended the connection: connect again and LISTEN again", address: address.redacted)
    }

    /// `channel` as a quoted identifier, once checked: not empty, at most 63 bytes (longer names
    /// are cut by the server, so two could meet), no NUL.
    private static func quotedChannel(_ channel: String, _ operation: String) throws(PostgresError) -> String {
        guard !channel.isEmpty, channel.utf8.count <= 63, !channel.utf8.contains(0) else {
            throw PostgresError(
                kind: .statement, operation: operation, message: "a channel's name must have 1 to 63 bytes and no NUL",
                hint: "name the channel with a short word, such as assembly_done")
        }
        return "\"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
