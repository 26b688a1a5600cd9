import Basics
import Crypto
import Postgres

/// The run queue of engines sharing a database: the executing Assemblies' rows. An engine claims
/// the oldest that no engine holds, or whose holder's lease ran out, with `FOR UPDATE SKIP
/// LOCKED` (engines claiming at once get different rows), under a fresh token that every change
/// of the run checks (`SharedAssemblyStore.update`): a paused engine whose lease passed cannot
/// end the Assembly another engine now runs.
final class SharedRunQueue: RunQueue {
    let lease: Duration
    private let state: SharedState
    private let work = WakeSignal()
    private let warn: @Sendable (String) -> Void

    init(state: SharedState, lease: Duration, warn: @escaping @Sendable (String) -> Void) {
        (self.state, self.lease, self.warn) = (state, lease, warn)
        state.on(.runnable) { [work] _ in work.signal() }
    }

    private var leaseText: String { SharedState.interval(lease) }

    func claim() throws -> RunClaim? {
        let token = RandomID.hex32()
        let rows = try state.database { connection in
            try connection.execute("""
                UPDATE pipeline_assemblies SET claim_token = $1, lease_until = now() + $2::interval, claims = claims + 1
                WHERE id = (
                    SELECT id FROM pipeline_assemblies
                    WHERE phase = 'executing' AND (lease_until IS NULL OR lease_until < now())
                    ORDER BY created LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING id
                """, [token, leaseText])
        }
        guard rows.count == 1, let id = try rows.string(0, "id") else { return nil }
        return RunClaim(assembly: id, token: token)
    }

    func claim(_ id: String) throws -> RunClaim? {
        let token = RandomID.hex32()
        let rows = try state.database { connection in
            try connection.execute(
                "UPDATE pipeline_assemblies SET claim_token = $2, lease_until = now() + $3::interval, claims = claims + 1 "
                    + "WHERE id = $1 AND phase = 'executing' AND (lease_until IS NULL OR lease_until < now()) RETURNING id",
                [id, token, leaseText])
        }
        return rows.count == 1 ? RunClaim(assembly: id, token: token) : nil
    }

    func renew(_ claim: RunClaim) -> Bool {
        do {
            let rows = try state.database { connection in
                try connection.execute(
                    "UPDATE pipeline_assemblies SET lease_until = now() + $3::interval WHERE id = $1 AND claim_token = $2 AND phase = 'executing'",
                    [claim.assembly, claim.token, leaseText])
            }
            return rows.affected == 1
        } catch {
            // Still held until the lease runs out: the next renewal may reach the database.
            warn("the lease on Assembly \(claim.assembly) could not be renewed: \(error)")
            return true
        }
    }

    func release(_ claim: RunClaim) {
        do {
            _ = try state.database { connection in
                try connection.execute(
                    "UPDATE pipeline_assemblies SET claim_token = NULL, lease_until = NULL WHERE id = $1 AND claim_token = $2",
                    [claim.assembly, claim.token])
            }
        } catch {
            warn("Assembly \(claim.assembly) could not be let go (another engine takes it once its lease runs out): \(error)")
        }
    }

    func announce() { state.notify(.runnable) }

    @available(*, noasync, message: "blocks its thread")
    func waitForWork(atMost longest: Duration) { _ = work.wait(atMost: longest) }
}
