import Foundation
import HTTPServer
import Wire
import Basics
import Synchronization

/// The engine's tus uploads on disk: `<dir>/<id>.bin` holds the bytes, `<dir>/<id>.json` the
/// record, written atomically. Survives restarts. One writer per upload at a time. Only unfinished
/// uploads stay in memory; a record is read when first asked for (and its bytes made to agree
/// with it then), so a start reads none.
final class UploadStore: Sendable {
    let directory: String
    /// Who writes each upload (numbered, so a claim gives back only its own), and who waits for it to let go.
    private struct Writers {
        var claims: [String: (number: Int, claim: Weak<UploadClaim>)] = [:]
        var next = 0
        var waiting: [String: [WakeSignal]] = [:]
    }

    private let writers = Mutex(Writers())
    /// The unfinished uploads read or made so far.
    private let records = Mutex<[String: TusUploadRecord]>([:])
    /// Held while a record is read from disk and its bytes made to agree with it.
    private let reading = Mutex(())
    /// Uploads whose record is in memory only: created with their first bytes, which no one can
    /// ask about before the creating request has been answered.
    private let unwritten = Mutex<Set<String>>([])

    /// Where records live and who writes, when several engines share the uploads; nil: this folder.
    let sharing: (any UploadSharing)?

    /// The store in `directory`; with `sharing`, that folder only spools each request's body.
    init(directory: String, sharing: (any UploadSharing)? = nil) throws {
        self.directory = directory
        self.sharing = sharing
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        removeOrphans()
        // Another engine wants an upload this one writes: the request writing it ends, and what it received counts.
        sharing?.onLetGoAsked { [weak self] id in _ = self?.release(id, patience: .zero) }
    }

    /// The stored uploads whose record was written at `since` or later (all of them when nil).
    func stored(writtenSince since: Date? = nil) -> [TusUploadRecord] {
        guard sharing == nil else { return [] }
        return FileSystem.namesOrNone(in: directory).compactMap { name -> TusUploadRecord? in
            guard name.hasSuffix(".json") else { return nil }
            let id = String(name.dropLast(5))
            if let since, let written = writtenAt(id), written < since { return nil }
            return record(id)
        }
    }

    /// When the record of `id` was last written.
    private func writtenAt(_ id: String) -> Date? {
        var info = stat()
        guard lstat(recordPath(id), &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Whether `id` has the shape of an upload id (so it can never name another path).
    static func isValidID(_ id: String) -> Bool { AssemblyID.isValid(id) }

    func dataPath(_ id: String) -> String { directory + "/" + id + ".bin" }
    private func recordPath(_ id: String) -> String { directory + "/" + id + ".json" }

    /// The record for `id`, from memory or disk.
    func record(_ id: String) -> TusUploadRecord? {
        guard Self.isValidID(id) else { return nil }
        if let sharing { return sharing.load(id) }
        if let cached = records.withLock({ $0[id] }) { return cached }
        return reading.withLock { _ in
            if let cached = records.withLock({ $0[id] }) { return cached }
            guard var record = StateCoding.cached(TusUploadRecord.self, at: recordPath(id)) else { return nil }  // damaged: no such upload
            guard reconcile(&record) else { return nil }
            if !record.isFinished { records.withLock { $0[id] = record } }
            return record
        }
    }

    /// Creates a new upload's empty data file and, unless `withBody` (then the first `save` writes
    /// it, once the body is in), its record: each with one exclusive create, as files are created
    /// in one folder by parallel requests and every temporary file and rename costs its lock.
    func create(_ record: TusUploadRecord, withBody: Bool = false) throws {
        if let sharing { return try sharing.create(record) }
        try Self.createExclusive(dataPath(record.id), contents: Data())
        if withBody {
            unwritten.withLock { _ = $0.insert(record.id) }
        } else {
            try Self.createExclusive(recordPath(record.id), contents: record.stateJSON().compactData)
        }
        records.withLock { $0[record.id] = record }
    }

    /// Saves a changed record, atomically (not flushed, like the Assemblies).
    func save(_ record: TusUploadRecord) throws {
        if let sharing {
            defer { unlink(dataPath(record.id)) }  // sent on, or to be sent again by the client; the next body makes its own
            return try sharing.save(record, spool: dataPath(record.id))
        }
        let encoded = record.stateJSON().compactData
        if unwritten.withLock({ $0.remove(record.id) }) != nil {
            try Self.createExclusive(recordPath(record.id), contents: encoded)
        } else {
            try AtomicFile.write(encoded, to: recordPath(record.id), durable: false)
        }
        records.withLock { $0[record.id] = record.isFinished ? nil : record }
    }

    /// Removes data files without a record: uploads whose creating request was cut by a crash.
    private func removeOrphans() {
        let names = Set(FileSystem.namesOrNone(in: directory))
        for name in names where name.hasSuffix(".bin") && !names.contains(name.dropLast(4) + ".json") {
            unlink(directory + "/" + name)
        }
    }

    /// Makes an upload's data file agree with its record, as read after a crash: bytes past the
    /// recorded offset (a body cut before its record was saved, or never verified) are cut off, and
    /// a file shorter than its record (written data lost with the machine) moves the offset back to
    /// what is there. False (and the upload deleted) when the file is not one this store wrote.
    private func reconcile(_ record: inout TusUploadRecord) -> Bool {
        let id = record.id
        var info = stat()
        guard lstat(dataPath(id), &info) == 0 else { return true }
        // A link or anything but a file (a data folder restored from elsewhere) is no upload of
        // this engine: cutting or tying it would reach whatever it names. Nor is an unfinished
        // upload's file with another name (a hard link), which writing it would change too; a
        // finished one is linked into its Assembly.
        guard info.st_mode & S_IFMT == S_IFREG, record.isFinished || info.st_nlink == 1 else {
            delete(id)
            return false
        }
        let size = Int64(info.st_size)
        if size > record.offset {
            truncate(dataPath(id), off_t(record.offset))
        } else if size < record.offset {
            // The next PATCH writes at the offset this store holds: it must be the file's size
            // even when the record cannot be saved (it is then saved with that PATCH).
            record.offset = size
            do { try save(record) } catch { records.withLock { $0[id] = record } }
        }
        return true
    }

    private static func createExclusive(_ path: String, contents: Data) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", code: errno) }
        defer { close(descriptor) }
        if let failure = contents.withUnsafeBytes({ SystemCall.writeAll($0, to: descriptor) }) {
            throw FileError(path: path, operation: "write", code: failure)
        }
    }

    /// Whether `id`'s data is a regular file of this folder (not a link to one elsewhere).
    func holdsData(_ id: String) -> Bool {
        var info = stat()
        return Self.isValidID(id) && lstat(dataPath(id), &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Deletes an upload's bytes and record; the bytes this freed (a file still linked elsewhere frees none).
    @discardableResult
    func delete(_ id: String) -> Int64 {
        guard Self.isValidID(id) else { return 0 }
        sharing?.delete(id)
        var freed: Int64 = 0
        for path in [dataPath(id), recordPath(id)] {
            var info = stat()
            if lstat(path, &info) == 0, info.st_nlink == 1, info.st_mode & S_IFMT == S_IFREG { freed += Int64(info.st_size) }
            unlink(path)
        }
        records.withLock { _ = $0.removeValue(forKey: id) }
        unwritten.withLock { _ = $0.remove(id) }
        return freed
    }

    /// Removes the uploads no one will finish or ask for: unfinished ones past their expiry and
    /// finished ones written before `cutoff` (an Assembly keeps its own link to the bytes), none
    /// that a request is writing. Only records not written for a while are read. How many went,
    /// and the bytes freed.
    func sweep(now: Date, finishedBefore cutoff: Date, lifetime: TimeInterval) -> (uploads: Int, bytes: Int64) {
        guard sharing == nil else { return (0, 0) }
        let idle = max(cutoff, now.addingTimeInterval(-lifetime))
        var removed = (uploads: 0, bytes: Int64(0))
        for name in FileSystem.namesOrNone(in: directory) where name.hasSuffix(".json") {
            let id = String(name.dropLast(5))
            guard Self.isValidID(id), let written = writtenAt(id), written <= idle, let record = record(id) else { continue }
            guard record.isFinished ? written <= cutoff : record.expires < now, let claim = claim(id) else { continue }
            removed.uploads += 1
            removed.bytes += delete(id)
            withExtendedLifetime(claim) {}
        }
        return removed
    }

    /// The right to write `id`, held until the claim is dropped; `nil` when another request holds it.
    func claim(_ id: String) -> UploadClaim? {
        let claim = writers.withLock { writers -> UploadClaim? in
            guard writers.claims[id] == nil else { return nil }
            writers.next += 1
            let number = writers.next
            let claim = UploadClaim { [self] in
                letGo(id, number)
                sharing?.letGo(id)
            }
            writers.claims[id] = (number, Weak(claim))
            return claim
        }
        guard let claim, let sharing else { return claim }
        // Held here; across engines too, or not at all (dropping the claim lets go of both).
        return sharing.hold(id) ? claim : nil
    }

    /// Claim `number` on `id` went away: the upload is free, and those waiting for it hear so.
    private func letGo(_ id: String, _ number: Int) {
        writers.withLock { writers in
            guard writers.claims[id]?.number == number else { return }
            writers.claims[id] = nil
            writers.waiting.removeValue(forKey: id)?.forEach { $0.signal() }
        }
    }

    /// Asks the request holding `id` to end (a client that reconnects after a dead connection
    /// wants its upload back) and waits up to `patience` for it to let go; whether `id` is free.
    /// What the ended request received is kept, so the offset then answered is the true one.
    @available(*, noasync, message: "blocks its thread")
    func release(_ id: String, patience: Duration = .seconds(5)) -> Bool {
        let freed = writers.withLock { writers -> WakeSignal? in
            guard writers.claims[id] != nil else { return nil }
            let freed = WakeSignal()
            writers.waiting[id, default: []].append(freed)
            return freed
        }
        guard let freed else { return true }
        // Asked of the holder without keeping it: the claim goes when the holder drops it.
        writers.withLock { $0.claims[id]?.claim.value }?.endHolder()
        _ = freed.wait(atMost: patience)
        return writers.withLock { $0.claims[id] == nil }
    }

    /// Asks whoever writes `id`, here or on another engine, to let go, and waits up to `patience`.
    @available(*, noasync, message: "blocks its thread")
    func releaseAnywhere(_ id: String, patience: Duration = .seconds(5)) -> Bool {
        guard release(id, patience: patience) else { return false }
        return sharing?.askToLetGo(id, patience: patience) ?? true
    }

}

/// A reference that does not keep its object alive.
struct Weak<Object: AnyObject & Sendable>: Sendable {
    weak var value: Object?
    init(_ value: Object) { self.value = value }
}

/// The right to write one upload: given back when the claim goes away, on every path.
final class UploadClaim: Sendable {
    private let release: @Sendable () -> Void
    /// Ends the request holding the claim, once its sink has one.
    private let ender = Mutex<RequestEnder?>(nil)

    init(release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    deinit { release() }

    /// Gives the claim the means to end the request that holds it.
    func attach(_ ender: RequestEnder) { self.ender.withLock { $0 = ender } }

    /// Ends the holding request (its body ends as if the client had gone).
    func endHolder() { ender.withLock { $0 }?() }
}
