import Basics
import Foundation
import Postgres
import Synchronization

/// The Assemblies of engines that share their state, as rows in Postgres: each change is one
/// transaction holding the row (`SELECT … FOR UPDATE`), so any engine may make it; a change of
/// phase is told to every engine (`NOTIFY`), whose held status requests then look again. Nothing
/// is kept in memory: every engine reads what the last one wrote. Files are named relative to
/// this engine's folder, which mirrors the shared files (`BucketFiles`).
final class SharedAssemblyStore: AssemblyRecords {
    let directory: String
    let clock: any MonotonicClock
    let signals = PhaseSignals()
    let readAtStart = 0
    private let state: SharedState
    private let held = HeldRequests(most: AssemblyStore.mostHeld)
    private let endObserver = Mutex<Callback<AssemblyRecord>?>(nil)
    private let warn: @Sendable (String) -> Void

    /// The store over `state`, mirroring files under `directory` (this engine's `assemblies` folder).
    init(state: SharedState, directory: String, clock: any MonotonicClock, warn: @escaping @Sendable (String) -> Void) throws {
        (self.state, self.directory, self.clock, self.warn) = (state, directory, clock, warn)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        state.on(.assemblyMoved) { [held, signals] id in
            if id.isEmpty { held.movedAll() } else { held.moved(id); signals.moved(id) }
        }
    }

    private var root: String { FolderPath.of(directory) }

    var heldCount: Int { held.count }

    var isReachable: Bool { state.isReachable }

    func insert(_ record: AssemblyRecord) throws -> Bool {
        let stored = String(decoding: try record.storedForm(relativeTo: root), as: UTF8.self)
        let rows = try state.database { connection in
            try connection.execute(
                "INSERT INTO pipeline_assemblies (id, record, phase, settled) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING id",
                [record.id, stored, record.phase.column, record.isSettled ? "true" : "false"])
        }
        return rows.count == 1
    }

    func get(_ id: String) -> AssemblyRecord? {
        guard AssemblyStore.isValidID(id) else { return nil }
        do {
            let rows = try state.database { try $0.execute("SELECT record FROM pipeline_assemblies WHERE id = $1", [id]) }
            guard rows.count == 1, let text = try rows.string(0, "record") else { return nil }
            return decoded(text, id: id)
        } catch {
            warn("Assembly \(id) could not be read from the database: \(error)")
            return nil
        }
    }

    private func decoded(_ text: String, id: String) -> AssemblyRecord? {
        do throws(StoredRecordRefusal) {
            return try AssemblyRecord.fromStoredForm(Data(text.utf8), id: id, root: root)
        } catch {
            warn("ignored the stored Assembly \(id.printable): \(error.reason)")
            return nil
        }
    }

    /// Every change is stored before `update` returns: what a client is told is stored.
    func reported(_ id: String) -> AssemblyRecord? { get(id) }

    @discardableResult
    func update(_ id: String, claim: RunClaim?, _ change: (inout AssemblyRecord) -> Void) -> AssemblyRecord? {
        guard AssemblyStore.isValidID(id) else { return nil }
        var moved = false
        let updated: AssemblyRecord?
        do {
            updated = try state.database { connection in
                try connection.transaction { connection -> AssemblyRecord? in
                    let rows = try connection.execute("SELECT record, claim_token FROM pipeline_assemblies WHERE id = $1 FOR UPDATE", [id])
                    guard rows.count == 1, let text = try rows.string(0, "record"), var record = decoded(text, id: id) else { return nil }
                    if let claim, try rows.string(0, "claim_token") != claim.token { return nil }  // another engine runs it now
                    let phase = record.phase
                    change(&record)
                    moved = record.phase != phase
                    let stored = String(decoding: try record.storedForm(relativeTo: root), as: UTF8.self)
                    try connection.execute(
                        "UPDATE pipeline_assemblies SET record = $2, phase = $3, settled = $4 WHERE id = $1",
                        [id, stored, record.phase.column, record.isSettled ? "true" : "false"])
                    if moved { try connection.execute("SELECT pg_notify($1, $2)", [SharedState.Channel.assemblyMoved.rawValue, id]) }
                    return record
                }
            }
        } catch {
            warn("Assembly \(id) could not be changed in the database: \(error)")
            return nil
        }
        if moved, let updated {
            held.moved(id)
            signals.moved(id)
            if updated.isTerminal { endObserver.withLock { $0 }?(updated) }
        }
        return updated
    }

    var live: [AssemblyRecord] { records("SELECT id, record FROM pipeline_assemblies WHERE NOT settled ORDER BY created") }

    func allStored() -> [AssemblyRecord] { records("SELECT id, record FROM pipeline_assemblies ORDER BY created DESC") }

    private func records(_ sql: String) -> [AssemblyRecord] {
        do {
            let rows = try state.database { try $0.execute(sql) }
            return try (0..<rows.count).compactMap { row throws(PostgresError) -> AssemblyRecord? in
                guard let id = try rows.string(row, "id"), let text = try rows.string(row, "record") else { return nil }
                return decoded(text, id: id)
            }
        } catch {
            warn("the Assemblies could not be read from the database: \(error)")
            return []
        }
    }

    func remove(_ ids: Set<String>) {
        guard !ids.isEmpty else { return }
        do {
            _ = try state.database { connection in
                try connection.execute("DELETE FROM pipeline_assemblies WHERE id = ANY($1::text[])", ["{" + ids.sorted().joined(separator: ",") + "}"])
            }
        } catch {
            warn("Assemblies could not be removed from the database: \(error)")
        }
    }

    func observeEnds(_ observer: @escaping @Sendable (AssemblyRecord) -> Void) {
        endObserver.withLock { $0 = Callback(observer) }
    }

    @available(*, noasync, message: "blocks its thread")
    func waitForChange(
        of id: String, from phase: AssemblyPhase, until deadline: ContinuousClock.Instant, clientGone: () -> Bool,
        whenAnswered: (@escaping @Sendable () -> Void) -> Void
    ) -> AssemblyRecord? {
        held.waitForChange(of: id, from: phase, until: deadline, clock: clock, clientGone: clientGone, whenAnswered: whenAnswered, read: get)
    }

    @available(*, noasync, message: "blocks its thread")
    func releaseWaiters() { held.stop(waitingAtMost: .seconds(1)) }

    /// Nothing waits to be written: every change is stored as it is made.
    func flush() {}
}

extension AssemblyPhase {
    /// The phase as the database's `phase` column holds it (`executing` ones are the run queue).
    var column: String {
        switch self {
        case .uploading: "uploading"
        case .executing: "executing"
        case .completed: "completed"
        case .canceled: "canceled"
        case .failed: "failed"
        }
    }
}
