/// One change to the database's schema: applied once, in order of `version`, and recorded.
public struct SchemaMigration: Sendable {
    /// Its place in the order (from 1); never reused for another change.
    public let version: Int
    /// A short name for messages and the record (`create_assemblies`).
    public let name: String
    /// The statements, separated by semicolons. They run inside a transaction, so nothing that
    /// refuses one (`CREATE INDEX CONCURRENTLY`, `VACUUM`).
    public let sql: String

    /// A migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// The schema this build knows, as the migrations that make it. `apply` brings a database up to
/// date: in one transaction holding an advisory lock, so instances starting at once apply each
/// migration exactly once, recorded in `pipeline_schema_migrations`. A database whose schema is
/// newer than this build's is refused.
public struct SchemaMigrations: Sendable {
    /// The migrations, in order of version.
    public let migrations: [SchemaMigration]

    /// The key of the transaction's advisory lock: "pipeline" in ASCII.
    static let lockKey: Int64 = 0x7069_7065_6c69_6e65

    /// The schema `migrations` make (in any order).
    public init(_ migrations: [SchemaMigration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies the migrations the database lacks, in order, through `pool`; the ones applied now.
    @discardableResult
    @available(*, noasync, message: "blocks its thread")
    public func apply(using pool: PostgresPool) throws -> [SchemaMigration] {
        try pool.withConnection { try apply(using: $0) }
    }

    /// Applies the migrations the database lacks, in order, on `connection`; the ones applied now.
    @discardableResult
    @available(*, noasync, message: "blocks its thread")
    public func apply(using connection: PostgresConnection) throws -> [SchemaMigration] {
        try checkList(connection.address)
        return try connection.transaction { connection in
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [String(Self.lockKey)])
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS pipeline_schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let rows = try connection.execute("SELECT version, name FROM pipeline_schema_migrations ORDER BY version")
            var applied: Set<Int64> = []
            for row in 0..<rows.count {
                if let version = try rows.int64(row, "version") { applied.insert(version) }
            }
            let known = migrations.last?.version ?? 0
            if rows.count > 0, let newest = try rows.int64(rows.count - 1, "version"), newest > known {
                let name = try rows.string(rows.count - 1, "name") ?? ""
                throw PostgresError(
                    kind: .schema, operation: "check the schema",
                    message: "the database's schema is at version \(newest) (\(name)), newer than this build knows (\(known))",
                    hint: "run the newer pipeline that migrated it, or point this one at another database (instances sharing a database run one version)",
                    address: connection.address.redacted)
            }
            var done: [SchemaMigration] = []
            for migration in migrations where !applied.contains(Int64(migration.version)) {
                do throws(PostgresError) {
                    try connection.executeScript(migration.sql)
                } catch var error {
                    error.operation = "schema migration \(migration.version) (\(migration.name)), at \(error.operation)"
                    throw error
                }
                try connection.execute(
                    "INSERT INTO pipeline_schema_migrations (version, name) VALUES ($1, $2)", [String(migration.version), migration.name])
                done.append(migration)
            }
            return done
        }
    }

    /// Refuses a list with a version below 1 or one listed twice.
    private func checkList(_ address: PostgresAddress) throws(PostgresError) {
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.version == later.version {
            throw PostgresError(
                kind: .schema, operation: "check the schema",
                message: "migration version \(later.version) is listed twice (\(earlier.name), \(later.name))",
                hint: "give each migration a version of its own", address: address.redacted)
        }
        if let first = migrations.first, first.version < 1 {
            throw PostgresError(
                kind: .schema, operation: "check the schema", message: "migration \(first.name) has version \(first.version)",
                hint: "number migrations from 1", address: address.redacted)
        }
    }
}
