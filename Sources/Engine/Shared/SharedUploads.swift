import Basics
import Foundation
import HTTPClient
import Postgres
import Synchronization

/// The tus uploads of engines sharing a database and a bucket: each upload's record and the state
/// of its S3 object (`S3ResumableUpload`: parts sent, the tail) in one row, the bytes in the
/// bucket at `tus/<id>` as they arrive. Who writes an upload is the row's `holder`, for a lease
/// renewed while the request lasts; a client that comes back to another engine (its connection
/// died) gets its upload once the holder, asked over `NOTIFY`, lets go, or its lease runs out.
final class SharedUploads: UploadSharing {
    private let state: SharedState
    private let writer: S3ResumableWriter
    private let prefix: String
    /// This engine's data folder, which the bucket's layout mirrors.
    private let root: String
    private let maximumSize: Int64
    private let lease: Duration
    private let warn: @Sendable (String) -> Void
    /// The uploads this engine holds, renewed at a third of the lease.
    private let held = Mutex<Set<String>>([])

    init(state: SharedState, client: S3Client, prefix: String, root: String, maximumSize: Int64, lease: Duration, warn: @escaping @Sendable (String) -> Void) {
        (self.state, self.prefix, self.root, self.maximumSize, self.lease, self.warn) = (state, prefix, root, maximumSize, lease, warn)
        writer = S3ResumableWriter(client: client, scratch: root + "/tus-scratch")
        // The leases of the uploads this engine writes are renewed at a third of their length.
        state.periodically(every: lease / 3) { [weak self] in self?.renewHeld() }
        state.periodically(every: .seconds(3600)) { [weak self] in self?.sweepScratch(now: Date()) }
    }

    private var leaseText: String { SharedState.interval(lease) }

    var isReachable: Bool { state.isReachable }

    func finishedPath(_ id: String) -> String { root + "/tus/" + id }

    func create(_ record: TusUploadRecord) throws {
        let type = record.metadata["filetype"].map { ["Content-Type": $0] } ?? [:]
        let object = try S3ResumableUpload(key: prefix + "tus/" + record.id, length: record.length, maximumSize: maximumSize, headers: type)
        // An empty upload is whole when it is made: its object too, before any engine can look for it.
        if record.isFinished {
            let writer = writer
            _ = try BlockingWait.result { try await writer.finish(object) }.get()
        }
        _ = try state.database { connection in
            try connection.execute(
                "INSERT INTO pipeline_uploads (id, record, stored) VALUES ($1, $2, $3)",
                [record.id, Self.text(record), Self.text(object)])
        }
    }

    func load(_ id: String) -> TusUploadRecord? {
        do {
            let rows = try state.database { try $0.execute("SELECT record FROM pipeline_uploads WHERE id = $1", [id]) }
            guard rows.count == 1, let text = try rows.string(0, "record") else { return nil }
            return try StateCoding.decode(TusUploadRecord.self, from: Data(text.utf8))
        } catch {
            warn("upload \(id) could not be read from the database: \(error)")
            return nil
        }
    }

    func save(_ record: TusUploadRecord, spool: String) throws {
        let rows = try state.database { try $0.execute("SELECT stored FROM pipeline_uploads WHERE id = $1", [record.id]) }
        guard rows.count == 1, let text = try rows.string(0, "stored") else {
            throw SharedBackendError(message: "upload \(record.id) is no longer in the database")
        }
        var object = try StateCoding.decode(S3ResumableUpload.self, from: Data(text.utf8))
        let fresh = record.offset - object.offset
        guard fresh >= 0 else { throw SharedBackendError(message: "upload \(record.id) holds more than this request brought") }
        if let length = record.length, object.length == nil { object.length = length }
        if fresh > 0 {
            let (writer, sent) = (writer, object)
            object = try BlockingWait.result { try await writer.append(sent, from: spool, offset: sent.offset, length: fresh) }.get()
        }
        if record.isFinished {
            let (writer, whole) = (writer, object)
            _ = try BlockingWait.result { try await writer.finish(whole) }.get()
        }
        let saved = try state.database { connection in
            try connection.execute(
                "UPDATE pipeline_uploads SET record = $2, stored = $3, written = now() WHERE id = $1 AND holder = $4",
                [record.id, Self.text(record), Self.text(object), state.instance])
        }
        // Another engine took the upload meanwhile (this one's lease ran out): its offset stands.
        guard saved.affected == 1 else { throw SharedBackendError(message: "upload \(record.id) was taken over by another engine") }
    }

    func delete(_ id: String) {
        do {
            let rows = try state.database { try $0.execute("DELETE FROM pipeline_uploads WHERE id = $1 RETURNING stored", [id]) }
            guard rows.count == 1, let text = try rows.string(0, "stored") else { return }
            let object = try StateCoding.decode(S3ResumableUpload.self, from: Data(text.utf8))
            let writer = writer
            _ = BlockingWait.result { await writer.abort(object) }
        } catch {
            warn("upload \(id) could not be removed from the database: \(error)")
        }
    }

    func hold(_ id: String) -> Bool {
        do {
            let rows = try state.database { connection in
                try connection.execute("""
                    UPDATE pipeline_uploads SET holder = $2, lease_until = now() + $3::interval
                    WHERE id = $1 AND (holder IS NULL OR holder = $2 OR lease_until < now()) RETURNING id
                    """, [id, state.instance, leaseText])
            }
            guard rows.count == 1 else { return false }
        } catch {
            warn("upload \(id) could not be claimed in the database: \(error)")
            return false
        }
        held.withLock { _ = $0.insert(id) }
        return true
    }

    func letGo(_ id: String) {
        held.withLock { _ = $0.remove(id) }
        do {
            _ = try state.database { connection in
                try connection.execute(
                    "UPDATE pipeline_uploads SET holder = NULL, lease_until = NULL WHERE id = $1 AND holder = $2", [id, state.instance])
            }
        } catch {
            warn("upload \(id) could not be let go in the database (another engine takes it once its lease runs out): \(error)")
        }
    }

    @available(*, noasync, message: "blocks its thread")
    func askToLetGo(_ id: String, patience: Duration) -> Bool {
        let deadline = ContinuousClock.now + patience
        var asked = false
        while true {
            let free: Bool
            do {
                let rows = try state.database { connection in
                    try connection.execute(
                        "SELECT holder IS NULL OR holder = $2 OR lease_until < now() AS free FROM pipeline_uploads WHERE id = $1", [id, state.instance])
                }
                free = try rows.count == 0 || rows.string(0, "free") == "t"
            } catch {
                return false
            }
            if free { return true }
            if !asked {
                state.notify(.releaseUpload, id)
                asked = true
            }
            guard ContinuousClock.now < deadline else { return false }
            WakeSignal.pause(for: .milliseconds(20))
        }
    }

    func onLetGoAsked(_ handler: @escaping @Sendable (String) -> Void) {
        state.on(.releaseUpload, handler)
    }

    /// Removes the writer's copies of tails older than a day: copies of uploads another engine
    /// finished (a copy spares this engine one GET when the next PATCH comes here).
    private func sweepScratch(now: Date) {
        let seconds = Int(now.timeIntervalSince1970)
        let scratch = writer.scratch
        for name in FileSystem.namesOrNone(in: scratch) {
            var info = stat()
            guard lstat(scratch + "/" + name, &info) == 0, info.st_mtim.tv_sec < seconds - 86_400 else { continue }
            FileSystem.cleanUp(scratch + "/" + name)
        }
    }

    /// Renews the leases of the uploads this engine holds.
    private func renewHeld() {
        let ids = held.withLock { $0 }
        guard !ids.isEmpty else { return }
        _ = try? state.database { connection in  // best effort: a lease not renewed runs out, and the save is refused
            try connection.execute(
                "UPDATE pipeline_uploads SET lease_until = now() + $3::interval WHERE id = ANY($1::text[]) AND holder = $2",
                ["{" + ids.sorted().joined(separator: ",") + "}", state.instance, leaseText])
        }
    }

    private static func text(_ record: TusUploadRecord) -> String {
        String(decoding: record.stateJSON().compactData, as: UTF8.self)
    }

    private static func text(_ object: S3ResumableUpload) throws -> String {
        String(decoding: try StateCoding.encoder.encode(object), as: UTF8.self)
    }
}
