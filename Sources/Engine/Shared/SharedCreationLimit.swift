import Basics
import Foundation
import Postgres

/// Assembly creations counted across every engine on the database, in a sliding window.
final class SharedCreationLimit: CreationLimit {
    private let state: SharedState
    private let limit: Int
    private let window: TimeInterval

    init(state: SharedState, limit: Int, window: TimeInterval) {
        (self.state, self.limit, self.window) = (state, limit, window)
    }

    func admit() -> Double? {
        do {
            return try state.database { connection in
                try connection.transaction { connection -> Double? in
                    // One engine counts at a time, so two never both take the last place.
                    try connection.execute("LOCK TABLE pipeline_creations IN SHARE ROW EXCLUSIVE MODE")
                    try connection.execute("DELETE FROM pipeline_creations WHERE at <= now() - $1::interval", ["\(window) seconds"])
                    let rows = try connection.execute(
                        "SELECT count(*) AS n, extract(epoch FROM min(at) + $1::interval - now()) AS wait FROM pipeline_creations", ["\(window) seconds"])
                    if let count = try rows.int64(0, "n"), count >= limit {
                        let wait = try rows.string(0, "wait").flatMap(Double.init) ?? window
                        return max(0.1, wait.rounded(.up))
                    }
                    try connection.execute("INSERT INTO pipeline_creations (at) VALUES (now())")
                    return nil
                }
            }
        } catch {
            return nil  // the database is away: creations go ahead (they fail on their own without it)
        }
    }
}
