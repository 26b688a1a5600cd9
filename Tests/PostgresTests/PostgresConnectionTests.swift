import Postgres
import TestSupport
import XCTest

final class PostgresConnectionTests: PostgresServerTestCase {
    private func connect() throws -> PostgresConnection {
        try PostgresConnection(PostgresAddress(parsing: makeDatabase()), applicationName: "pipeline-test")
    }

    func testParametersAndResultsRoundTrip() throws {
        let connection = try connect()
        defer { connection.close() }
        let unicode = "Grüße, 世界 🚀 e\u{301} ' \" \\ $1 ;"
        let large = String(repeating: "0123456789abcdeé", count: 1 << 16)  // 1 MiB and 64 KiB of text, some of it two bytes a character
        XCTAssertGreaterThan(large.utf8.count, 1 << 20)
        let rows = try connection.execute(
            "SELECT $1::text AS unicode, $2::text AS nothing, $3::text AS large, length($3) AS characters, $4::bigint + 1 AS next, '' AS empty",
            [unicode, nil, large, String(Int64.max - 1)])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.columns, ["unicode", "nothing", "large", "characters", "next", "empty"])
        XCTAssertEqual(try rows.string(0, "unicode"), unicode)
        XCTAssertNil(try rows.string(0, "nothing"))
        XCTAssertTrue(try rows.isNull(0, "nothing"))
        XCTAssertFalse(try rows.isNull(0, "empty"))
        XCTAssertEqual(try rows.string(0, "empty"), "")
        XCTAssertEqual(try rows.string(0, "large"), large)
        XCTAssertEqual(try rows.int64(0, "characters"), Int64(large.count))
        XCTAssertEqual(try rows.int64(0, "next"), Int64.max)
        XCTAssertEqual(rows.column("large"), 2)
        XCTAssertEqual(connection.roundTrips, 1)
    }

    func testRowsAndAffectedCounts() throws {
        let connection = try connect()
        defer { connection.close() }
        try connection.execute("CREATE TABLE uploads (id text PRIMARY KEY, offset_bytes bigint)")
        XCTAssertEqual(try connection.execute("INSERT INTO uploads VALUES ($1, 0), ($2, 5), ($3, NULL)", ["a", "b", "c"]).affected, 3)
        XCTAssertEqual(try connection.execute("UPDATE uploads SET offset_bytes = 7 WHERE offset_bytes IS NOT NULL").affected, 2)
        let rows = try connection.execute("SELECT id, offset_bytes FROM uploads ORDER BY id")
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(try (0..<rows.count).map { try rows.string($0, "id") }, ["a", "b", "c"])
        XCTAssertEqual(try rows.int64(2, "offset_bytes"), nil)
        XCTAssertEqual(try connection.execute("DELETE FROM uploads WHERE id = $1", ["zz"]).affected, 0)
        XCTAssertEqual(try connection.execute("CREATE INDEX ON uploads (offset_bytes)").affected, 0)
    }

    func testReadingWhatTheResultLacksIsAnError() throws {
        let connection = try connect()
        defer { connection.close() }
        let rows = try connection.execute("SELECT 'seven' AS word, 1 AS one")
        XCTAssertThrowsError(try rows.string(0, "missing")) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .result)
            XCTAssertTrue("\(error)".contains("the result has no column missing; its columns are word, one"), "\(error)")
        }
        XCTAssertThrowsError(try rows.string(1, "word")) { XCTAssertTrue("\($0)".contains("row 1 asked of a result of 1 rows"), "\($0)") }
        XCTAssertThrowsError(try rows.int64(0, "word")) { XCTAssertTrue("\($0)".contains("is not a whole number"), "\($0)") }
    }

    func testAUniqueViolationGivesItsSQLStateAndDetailButNoParameter() throws {
        let connection = try connect()
        defer { connection.close() }
        try connection.execute("CREATE TABLE signatures (signature text PRIMARY KEY, secret text)")
        try connection.execute("INSERT INTO signatures VALUES ($1, $2)", ["sig-1", "hunter2"])
        XCTAssertThrowsError(try connection.execute("INSERT INTO signatures VALUES ($1, $2)", ["sig-1", "hunter2"])) { error in
            guard let error = error as? PostgresError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .statement)
            XCTAssertEqual(error.sqlState, "23505")
            XCTAssertEqual(error.operation, "INSERT INTO signatures")
            XCTAssertEqual(error.detail, "Key (signature)=(sig-1) already exists.")
            XCTAssertTrue(error.message.contains("duplicate key value violates unique constraint"), error.message)
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("INSERT INTO signatures on postgres://postgres@127.0.0.1:"), "\(error)")
        }
        XCTAssertFalse(connection.isBroken, "a refused statement leaves the connection usable")
        XCTAssertEqual(try connection.execute("SELECT count(*) AS n FROM signatures").int64(0, "n"), 1)
    }

    func testTheServersHintIsKept() throws {
        let connection = try connect()
        defer { connection.close() }
        XCTAssertThrowsError(try connection.execute("SELECT length(1)")) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42883")
            XCTAssertNotNil((error as? PostgresError)?.hint, "\(error)")
        }
    }

    func testANULIsRefusedBeforeItIsSent() throws {
        let connection = try connect()
        defer { connection.close() }
        XCTAssertThrowsError(try connection.execute("SELECT $1::text", ["a\u{0}b"])) { error in
            XCTAssertTrue("\(error)".contains("parameter $1 holds a NUL character"), "\(error)")
        }
        XCTAssertEqual(connection.roundTrips, 0)
    }

    func testATransactionCommitsOrRollsBackOnAThrownError() throws {
        struct Refused: Error {}
        let connection = try connect()
        defer { connection.close() }
        try connection.execute("CREATE TABLE jobs (id int PRIMARY KEY)")
        let value = try connection.transaction { connection in
            try connection.execute("INSERT INTO jobs VALUES (1)")
            return "kept"
        }
        XCTAssertEqual(value, "kept")
        XCTAssertThrowsError(try connection.transaction { connection in
            try connection.execute("INSERT INTO jobs VALUES (2)")
            throw Refused()
        }) { XCTAssertTrue($0 is Refused, "\($0)") }
        // A statement that failed inside, its error caught: the transaction is rolled back, and said so.
        XCTAssertThrowsError(try connection.transaction { connection in
            try connection.execute("INSERT INTO jobs VALUES (3)")
            _ = try? connection.execute("INSERT INTO jobs VALUES (1)")  // the duplicate this test makes fail
        }) { XCTAssertTrue("\($0)".contains("a statement in the transaction failed, so it was rolled back"), "\($0)") }
        let ids = try connection.execute("SELECT id FROM jobs ORDER BY id")
        XCTAssertEqual(try (0..<ids.count).map { try ids.int64($0, "id") }, [1])
        XCTAssertThrowsError(try connection.transaction { try $0.transaction { _ in } }) {
            XCTAssertTrue("\($0)".contains("a transaction is already open"), "\($0)")
        }
    }

    func testAFailedCommitRollsBack() throws {
        let connection = try connect()
        defer { connection.close() }
        try connection.execute("CREATE TABLE leases (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED)")
        XCTAssertThrowsError(try connection.transaction { connection in
            try connection.execute("INSERT INTO leases VALUES (1), (1)")  // checked at COMMIT
        }) { error in
            XCTAssertEqual((error as? PostgresError)?.operation, "COMMIT")
            XCTAssertEqual((error as? PostgresError)?.sqlState, "23505")
        }
        XCTAssertEqual(try connection.execute("SELECT count(*) AS n FROM leases").int64(0, "n"), 0)
        try connection.transaction { try $0.execute("INSERT INTO leases VALUES (1)") }
        XCTAssertEqual(try connection.execute("SELECT count(*) AS n FROM leases").int64(0, "n"), 1)
    }

    func testAConnectionTheServerEndsIsBroken() throws {
        let connection = try connect()
        let other = try connect()
        defer { connection.close(); other.close() }
        let pid = try XCTUnwrap(connection.execute("SELECT pg_backend_pid() AS pid").string(0, "pid"))
        try other.execute("SELECT pg_terminate_backend($1::int, 10000)", [pid])
        XCTAssertThrowsError(try connection.execute("SELECT 1")) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connectionLost, "\(error)")
            XCTAssertTrue("\(error)".contains("a pool replaces it on next use"), "\(error)")
        }
        XCTAssertTrue(connection.isBroken)
        XCTAssertFalse(other.isBroken)
    }

    func testAClosedConnectionRefusesWork() throws {
        let connection = try connect()
        connection.close()
        connection.close()
        XCTAssertTrue(connection.isBroken)
        XCTAssertThrowsError(try connection.execute("SELECT 1")) { XCTAssertEqual(($0 as? PostgresError)?.kind, .closed) }
    }

    func testAScriptRunsSeveralStatements() throws {
        let connection = try connect()
        defer { connection.close() }
        try connection.executeScript("CREATE TABLE a (x int); CREATE TABLE b (y int); INSERT INTO a VALUES (1);")
        XCTAssertEqual(try connection.execute("SELECT count(*) AS n FROM a, b").int64(0, "n"), 0)
        XCTAssertThrowsError(try connection.executeScript("CREATE TABLE c (x int); CREATE TABLE a (x int)")) {
            XCTAssertEqual(($0 as? PostgresError)?.sqlState, "42P07")
        }
    }

    func testTheServerSeesTheApplicationName() throws {
        let connection = try PostgresConnection(PostgresAddress(parsing: try postgres.url), applicationName: "pipeline-serve-7")
        defer { connection.close() }
        XCTAssertEqual(try connection.execute("SELECT current_setting('application_name') AS name").string(0, "name"), "pipeline-serve-7")
    }
}
