import Basics
import Postgres

/// The announcements of engines sharing a database: who delivers each is kept on the Assembly's
/// row, for a lease longer than one attempt's timeout and renewed before each attempt, so an
/// Assembly is announced by one engine at a time, and by another if that one dies.
final class SharedDeliveries: DeliveryLeases {
    private let state: SharedState
    private let lease: Duration
    private let warn: @Sendable (String) -> Void

    init(state: SharedState, lease: Duration = .seconds(90), warn: @escaping @Sendable (String) -> Void) {
        (self.state, self.lease, self.warn) = (state, lease, warn)
    }

    func take(_ id: String) -> Bool {
        do {
            return try state.database { connection in
                try connection.execute("""
                    UPDATE pipeline_assemblies SET notify_holder = $2, notify_lease_until = now() + $3::interval
                    WHERE id = $1 AND (notify_holder IS NULL OR notify_holder = $2 OR notify_lease_until < now()) RETURNING id
                    """, [id, state.instance, SharedState.interval(lease)])
            }.count == 1
        } catch {
            warn("the announcement of Assembly \(id) could not be taken in the database (an engine takes it later): \(error)")
            return false
        }
    }

    func release(_ id: String) {
        do {
            _ = try state.database { connection in
                try connection.execute(
                    "UPDATE pipeline_assemblies SET notify_holder = NULL, notify_lease_until = NULL WHERE id = $1 AND notify_holder = $2", [id, state.instance])
            }
        } catch {
            warn("the announcement of Assembly \(id) could not be let go (another engine takes it once its lease runs out): \(error)")
        }
    }

    func orphaned() -> [String] {
        do {
            let rows = try state.database { connection in
                try connection.execute("""
                    SELECT id FROM pipeline_assemblies
                    WHERE NOT settled AND phase IN ('completed', 'canceled', 'failed') AND (notify_holder IS NULL OR notify_lease_until < now())
                    ORDER BY created LIMIT 100
                    """)
            }
            return try (0..<rows.count).compactMap { try rows.string($0, "id") }
        } catch {
            warn("the pending announcements could not be read from the database: \(error)")
            return []
        }
    }
}
