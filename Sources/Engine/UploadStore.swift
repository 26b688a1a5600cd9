import Foundation
import Basics
import Synchronization

/// The engine's tus uploads on disk: `<dir>/<id>.bin` holds the bytes, `<dir>/<id>.json` the
/// record, written atomically. Survives restarts. One writer per upload at a time.
final class UploadStore: Sendable {
    let directory: String
    private let writers = Mutex<Set<String>>([])
    private let records = Mutex<[String: TusUploadRecord]>([:])

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Whether `id` has the shape of an upload id (so it can never name another path).
    static func isValidID(_ id: String) -> Bool {
        id.count == 32 && id.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    func dataPath(_ id: String) -> String { directory + "/" + id + ".bin" }
    private func recordPath(_ id: String) -> String { directory + "/" + id + ".json" }

    /// The record for `id`, from memory or disk.
    func record(_ id: String) -> TusUploadRecord? {
        guard Self.isValidID(id) else { return nil }
        if let cached = records.withLock({ $0[id] }) { return cached }
        guard let data = FileManager.default.contents(atPath: recordPath(id)),
              let record = try? StateCoding.decode(TusUploadRecord.self, from: data) else { return nil }
        records.withLock { $0[id] = record }
        return record
    }

    /// Saves a record (atomically; not flushed, like the Assemblies) and creates the data file if needed.
    func save(_ record: TusUploadRecord) throws {
        if !FileManager.default.fileExists(atPath: dataPath(record.id)) {
            guard FileManager.default.createFile(atPath: dataPath(record.id), contents: nil) else {
                throw FileError(path: dataPath(record.id), operation: "create", code: errno)
            }
        }
        try AtomicFile.write(try StateCoding.encoder.encode(record), to: recordPath(record.id), durable: false)
        records.withLock { $0[record.id] = record }
    }

    /// Deletes an upload's bytes and record.
    func delete(_ id: String) {
        guard Self.isValidID(id) else { return }
        unlink(dataPath(id))
        unlink(recordPath(id))
        records.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// The right to write `id`, held until the claim is dropped; `nil` when another request holds it.
    func claim(_ id: String) -> UploadClaim? {
        guard writers.withLock({ $0.insert(id).inserted }) else { return nil }
        return UploadClaim { [self] in writers.withLock { _ = $0.remove(id) } }
    }
}

/// The right to write one upload: given back when the claim goes away, on every path.
final class UploadClaim: Sendable {
    private let release: @Sendable () -> Void

    init(release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    deinit { release() }
}
