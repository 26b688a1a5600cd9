import Postgres
import Synchronization
import TestSupport
import XCTest

final class SchemaMigrationsTests: PostgresServerTestCase {
    /// Three migrations that fail if run twice (no IF NOT EXISTS), the third counting its runs.
    private let schema = SchemaMigrations([
        SchemaMigration(version: 2, name: "create_uploads", sql: "CREATE TABLE uploads (id text PRIMARY KEY); CREATE TABLE runs (n int)"),
        SchemaMigration(version: 1, name: "create_assemblies", sql: "CREATE TABLE assemblies (id text PRIMARY KEY, status text)"),
        SchemaMigration(version: 3, name: "count_runs", sql: "INSERT INTO runs VALUES (1); ALTER TABLE assemblies ADD COLUMN ended_at timestamptz"),
    ])

    func testFourInstancesStartingAtOnceApplyEachMigrationOnce() throws {
        let address = try PostgresAddress(parsing: makeDatabase())
        let outcomes = Mutex<[Result<[Int], any Error>]>([])
        let schema = self.schema
        onThreads(4) { _ in
            let outcome = Result {
                let connection = try PostgresConnection(address, applicationName: "instance")
                defer { connection.close() }
                return try schema.apply(using: connection).map(\.version)
            }
            outcomes.withLock { $0.append(outcome) }
        }
        let applied = try outcomes.withLock { $0 }.map { try $0.get() }
        XCTAssertEqual(applied.count, 4)
        XCTAssertEqual(applied.filter { !$0.isEmpty }, [[1, 2, 3]], "one instance applied all three, in order; the others none")
        let connection = try PostgresConnection(address, applicationName: "check")
        defer { connection.close() }
        XCTAssertEqual(try connection.execute("SELECT count(*) AS n FROM runs").int64(0, "n"), 1)
        let rows = try connection.execute("SELECT version, name, applied_at FROM pipeline_schema_migrations ORDER BY version")
        XCTAssertEqual(try (0..<rows.count).map { try rows.string($0, "name") }, ["create_assemblies", "create_uploads", "count_runs"])
        XCTAssertFalse(try rows.isNull(0, "applied_at"))
        XCTAssertEqual(try schema.apply(using: connection).count, 0, "a later start applies nothing")
    }

    func testANewMigrationIsAppliedOnTheNextStart() throws {
        let pool = PostgresPool(try PostgresAddress(parsing: makeDatabase()), size: 1, applicationName: "instance")
        defer { pool.close() }
        let first = SchemaMigrations(Array(schema.migrations.prefix(2)))
        XCTAssertEqual(try first.apply(using: pool).map(\.version), [1, 2])
        XCTAssertEqual(try schema.apply(using: pool).map(\.name), ["count_runs"])
    }

    func testADatabaseNewerThanTheBuildIsRefused() throws {
        let connection = try PostgresConnection(PostgresAddress(parsing: makeDatabase()), applicationName: "instance")
        defer { connection.close() }
        let newer = SchemaMigrations(schema.migrations + [SchemaMigration(version: 4, name: "add_leases", sql: "CREATE TABLE leases (id int)")])
        try newer.apply(using: connection)
        XCTAssertThrowsError(try schema.apply(using: connection)) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .schema)
            XCTAssertTrue("\(error)".contains("schema is at version 4 (add_leases), newer than this build knows (3)"), "\(error)")
        }
    }

    func testAFailingMigrationAppliesNothingAndIsNamed() throws {
        let connection = try PostgresConnection(PostgresAddress(parsing: makeDatabase()), applicationName: "instance")
        defer { connection.close() }
        let broken = SchemaMigrations(schema.migrations + [SchemaMigration(version: 4, name: "typo", sql: "CREATE TABLE x (id int); CREAT TABLE y ()")])
        XCTAssertThrowsError(try broken.apply(using: connection)) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42601")
            XCTAssertTrue("\(error)".hasPrefix("schema migration 4 (typo), at CREATE TABLE x on "), "\(error)")
        }
        XCTAssertEqual(try connection.execute("SELECT to_regclass('pipeline_schema_migrations') IS NULL AS missing").string(0, "missing"), "t",
                       "the whole start was one transaction")
        XCTAssertEqual(try schema.apply(using: connection).count, 3)
    }

    func testAVersionListedTwiceIsRefused() throws {
        let connection = try PostgresConnection(PostgresAddress(parsing: makeDatabase()), applicationName: "instance")
        defer { connection.close() }
        let twice = SchemaMigrations(schema.migrations + [SchemaMigration(version: 2, name: "again", sql: "SELECT 1")])
        XCTAssertThrowsError(try twice.apply(using: connection)) { XCTAssertTrue("\($0)".contains("version 2 is listed twice"), "\($0)") }
    }
}
