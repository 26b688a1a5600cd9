import Postgres

/// The tables engines sharing their state keep in Postgres, as versioned migrations applied at
/// start (`SchemaMigrations`): a new version adds a migration, never edits one applied.
enum SharedSchema {
    /// Every migration, in order.
    static let migrations: [SchemaMigration] = [
        SchemaMigration(version: 1, name: "assemblies, runs, uploads, signatures, templates, creations", sql: """
            CREATE TABLE pipeline_assemblies (
                id text PRIMARY KEY,
                record text NOT NULL,
                phase text NOT NULL,
                settled boolean NOT NULL,
                created timestamptz NOT NULL DEFAULT now(),
                claim_token text,
                lease_until timestamptz,
                claims integer NOT NULL DEFAULT 0,
                notify_holder text,
                notify_lease_until timestamptz
            );
            CREATE INDEX pipeline_assemblies_runnable ON pipeline_assemblies (created) WHERE phase = 'executing';
            CREATE INDEX pipeline_assemblies_live ON pipeline_assemblies (created) WHERE NOT settled;
            CREATE TABLE pipeline_uploads (
                id text PRIMARY KEY,
                record text NOT NULL,
                stored text NOT NULL,
                holder text,
                lease_until timestamptz,
                written timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE pipeline_signatures (
                digest text PRIMARY KEY,
                expires timestamptz NOT NULL
            );
            CREATE INDEX pipeline_signatures_expires ON pipeline_signatures (expires);
            CREATE TABLE pipeline_templates (
                id text PRIMARY KEY,
                name text NOT NULL UNIQUE,
                created timestamptz NOT NULL,
                record text NOT NULL
            );
            CREATE TABLE pipeline_creations (
                at timestamptz NOT NULL
            );
            CREATE INDEX pipeline_creations_at ON pipeline_creations (at);
            """),
    ]
}
