import Foundation
import Basics
import Synchronization

/// The engine's Assemblies, in memory and as JSON files in the data folder (written
/// atomically after every change), so they survive a restart.
final class AssemblyStore: Sendable {
    let directory: String
    private let records: Mutex<[String: AssemblyRecord]>

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var loaded: [String: AssemblyRecord] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".json") {
            if let data = FileManager.default.contents(atPath: directory + "/" + name),
               let record = try? StateCoding.decode(AssemblyRecord.self, from: data) {
                loaded[record.id] = record
            }
        }
        records = Mutex(loaded)
    }

    /// Whether `id` has the shape of an Assembly id.
    static func isValidID(_ id: String) -> Bool { UploadStore.isValidID(id) }

    /// Adds a new Assembly; `false` when the id is taken.
    func insert(_ record: AssemblyRecord) -> Bool {
        let inserted = records.withLock { records -> Bool in
            guard records[record.id] == nil else { return false }
            records[record.id] = record
            return true
        }
        if inserted { persist(record) }
        return inserted
    }

    func get(_ id: String) -> AssemblyRecord? { records.withLock { $0[id] } }

    /// Every Assembly, for resuming work after a restart.
    var all: [AssemblyRecord] { records.withLock { Array($0.values) } }

    /// Changes an Assembly under the lock and saves it; returns the new state.
    @discardableResult
    func update(_ id: String, _ change: (inout AssemblyRecord) -> Void) -> AssemblyRecord? {
        let updated = records.withLock { records -> AssemblyRecord? in
            guard var record = records[id] else { return nil }
            change(&record)
            records[id] = record
            return record
        }
        if let updated { persist(updated) }
        return updated
    }

    private func persist(_ record: AssemblyRecord) {
        guard let data = try? StateCoding.encoder.encode(record) else { return }
        try? AtomicFile.write(data, to: directory + "/" + record.id + ".json")
    }
}
