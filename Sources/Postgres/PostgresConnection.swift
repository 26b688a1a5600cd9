import CPostgres
import Synchronization

/// One connection to a Postgres server through libpq. Its calls block (run them on a blocking
/// pool's thread) and take turns: the handle is behind a `Mutex`, one call at a time. Values go
/// as text parameters and come back as text (`PostgresRows`).
public final class PostgresConnection: Sendable {
    /// The server and database.
    public let address: PostgresAddress
    /// libpq's connection; nil once closed.
    private let handle: Mutex<OpaquePointer?>
    private let trips = Atomic<Int>(0)

    /// Connects to `address` as `applicationName` (what `pg_stat_activity` shows), waiting at most
    /// the address's `connectTimeout`. Loads libpq the first time.
    @available(*, noasync, message: "blocks its thread")
    public init(_ address: PostgresAddress, applicationName: String) throws(PostgresError) {
        try PostgresLibrary.require()
        var settings = [
            ("host", address.host), ("port", String(address.port)), ("dbname", address.database),
            ("connect_timeout", String(address.connectTimeout)), ("application_name", applicationName),
            ("client_encoding", "UTF8"),
        ]
        if let user = address.user { settings.append(("user", user)) }
        if let password = address.password { settings.append(("password", password)) }
        if let sslMode = address.sslMode { settings.append(("sslmode", sslMode)) }
        let connection = TextParameters.with(settings.map(\.0) + [nil]) { keywords in
            TextParameters.with(settings.map(\.1) + [nil]) { values in pipeline_pq_connect(keywords, values) }
        }
        guard let connection else {
            throw PostgresError.connectFailed("libpq could not start a connection (out of memory)", address: address)
        }
        guard Int(pipeline_pq_status(connection)) == PIPELINE_PQ_CONNECTION_OK else {
            let message = String(cString: pipeline_pq_error(connection))
            pipeline_pq_finish(connection)
            throw PostgresError.connectFailed(message, address: address)
        }
        pipeline_pq_quiet(connection)
        self.address = address
        handle = Mutex(connection)
    }

    deinit { close() }

    /// Runs one statement with `parameters` as text (`$1`, `$2`, ...; nil is NULL) and gives its
    /// rows. One round trip.
    @discardableResult
    @available(*, noasync, message: "blocks its thread")
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        let operation = PostgresError.operation(of: sql)
        if let position = TextParameters.firstWithNUL([sql] + parameters) {
            throw PostgresError(
                kind: .statement, operation: operation,
                message: position == 1 ? "the statement holds a NUL character" : "parameter $\(position - 1) holds a NUL character",
                hint: "Postgres text cannot hold NUL: encode such bytes (base64, or a bytea in hex)", address: address.redacted)
        }
        return try withHandle(operation) { connection throws(PostgresError) in
            trips.add(1, ordering: .relaxed)
            let result = TextParameters.with(parameters) { values in
                pipeline_pq_exec_params(connection, sql, Int32(parameters.count), values)
            }
            defer { pipeline_pq_clear(result) }
            return try Self.rows(of: result, operation, connection, address)
        }
    }

    /// Runs `sql`, which may hold several statements separated by semicolons and takes no
    /// parameters (a schema migration). One round trip.
    @available(*, noasync, message: "blocks its thread")
    public func executeScript(_ sql: String) throws(PostgresError) {
        let operation = PostgresError.operation(of: sql)
        guard !sql.utf8.contains(0) else {
            throw PostgresError(kind: .statement, operation: operation, message: "the script holds a NUL character", address: address.redacted)
        }
        try withHandle(operation) { connection throws(PostgresError) in
            trips.add(1, ordering: .relaxed)
            let result = pipeline_pq_exec(connection, sql)
            defer { pipeline_pq_clear(result) }
            _ = try Self.rows(of: result, operation, connection, address)
        }
    }

    /// Requests sent to the server so far (each statement or script is one round trip).
    public var roundTrips: Int { trips.load(ordering: .relaxed) }

    /// Whether the connection is closed or broken (the server went away): it cannot be used again.
    public var isBroken: Bool {
        handle.withLock { connection in
            connection.map { Int(pipeline_pq_status($0)) != PIPELINE_PQ_CONNECTION_OK } ?? true
        }
    }

    /// Closes the connection; later calls fail with a `closed` error. Closing twice is harmless.
    public func close() {
        handle.withLock { connection in
            pipeline_pq_finish(connection)
            connection = nil
        }
    }

    /// Whether the connection still works, found without a round trip: what the server sent
    /// meanwhile is read, and libpq's status asked. A session the server ended has sent its reason
    /// (which libpq takes for a notice) and then closed: the first read takes the reason, the
    /// second finds the end.
    func isAlive() -> Bool {
        let alive = try? withHandle("check") { connection in
            pipeline_pq_consume_input(connection) != 0 && pipeline_pq_consume_input(connection) != 0
                && Int(pipeline_pq_status(connection)) == PIPELINE_PQ_CONNECTION_OK
        }
        return alive == true  // closed: not alive
    }

    /// Calls `body` with libpq's connection, one caller at a time; a `closed` error once closed.
    func withHandle<Value: Sendable>(
        _ operation: String, _ body: (OpaquePointer) throws(PostgresError) -> Value
    ) throws(PostgresError) -> Value {
        try handle.withLock { connection throws(PostgresError) -> Value in
            guard let connection else { throw PostgresError.closed(operation, address: address) }
            return try body(connection)
        }
    }

    /// The rows of a statement's `result`, or its error.
    private static func rows(
        of result: OpaquePointer?, _ operation: String, _ connection: OpaquePointer, _ address: PostgresAddress
    ) throws(PostgresError) -> PostgresRows {
        switch Int(pipeline_pq_result_status(result)) {
        case PIPELINE_PQ_COMMAND_OK, PIPELINE_PQ_TUPLES_OK, PIPELINE_PQ_EMPTY_QUERY:
            return PostgresRows(result, operation: operation)
        default:
            throw PostgresError.failed(operation, result: result, connection: connection, address: address)
        }
    }
}
