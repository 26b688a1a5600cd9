import Basics
import Crypto
import Foundation
import Postgres

/// The signatures engines sharing a database took, each as the SHA-256 of the signature (never the
/// signature) with its expiry: one insert decides, so a request replayed to any engine is refused.
/// Expired rows are taken over by a new use and deleted now and then.
final class SharedSignatures: UsedSignatures {
    private let state: SharedState
    private let warn: @Sendable (String) -> Void

    init(state: SharedState, warn: @escaping @Sendable (String) -> Void) {
        (self.state, self.warn) = (state, warn)
    }

    func insert(_ signature: String, expires: Date, now: Date) -> Bool {
        do {
            let rows = try state.database { connection in
                // A row whose expiry passed is taken over: that signature is refused for its expiry alone.
                try connection.execute("""
                    INSERT INTO pipeline_signatures (digest, expires) VALUES ($1, to_timestamp($2))
                    ON CONFLICT (digest) DO UPDATE SET expires = EXCLUDED.expires WHERE pipeline_signatures.expires <= to_timestamp($3)
                    RETURNING digest
                    """, [SHA256.hex(signature), String(expires.timeIntervalSince1970), String(now.timeIntervalSince1970)])
            }
            if rows.count == 1, Int.random(in: 0..<1024) == 0 { dropExpired(now: now) }
            return rows.count == 1
        } catch {
            // Refused: without the database no engine can tell whether the signature was used.
            warn("a signature could not be checked against the database: \(error)")
            return false
        }
    }

    /// Adds the signatures of a data folder's ledger (`SignatureLedger`'s file at `path`) not yet
    /// expired; how many. A ledger that cannot be read is an error: a move that forgot them would
    /// let those requests be replayed.
    func insert(ledgerAt path: String, now: Date = Date()) throws -> Int {
        let kept = try SignatureLedger(path: path, now: now).unexpired
        for (digest, expires) in kept {
            _ = try state.database { connection in
                try connection.execute(
                    "INSERT INTO pipeline_signatures (digest, expires) VALUES ($1, to_timestamp($2)) ON CONFLICT (digest) DO NOTHING",
                    [digest, String(expires)])
            }
        }
        return kept.count
    }

    private func dropExpired(now: Date) {
        _ = try? state.database { connection in  // best effort: expired rows only cost space until the next try
            try connection.execute("DELETE FROM pipeline_signatures WHERE expires <= to_timestamp($1)", [String(now.timeIntervalSince1970)])
        }
    }
}
