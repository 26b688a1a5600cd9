import Basics
import Foundation

extension AssemblyRecord {
    /// The record as stored: JSON, its files named relative to `root` (the data folder), so the
    /// folder can be copied or restored elsewhere, or mirrored by another engine.
    func storedForm(relativeTo root: String) throws -> Data {
        try mappingFilePaths { RealPath.relative($0, inside: root) ?? $0 }.stateJSON().compactData
    }

    /// A stored record of `id` read back for `root`. A stored record is input, never truth (a data
    /// folder may come from a cache or a commit, a database from a restore): one named for another
    /// id, or naming a file outside `root` (which the engine would serve and read as a robot's
    /// input), is refused with the reason.
    static func fromStoredForm(_ data: Data, id: String, root: String) throws(StoredRecordRefusal) -> AssemblyRecord {
        let record: AssemblyRecord
        do {
            // Absolute paths are those of records older engines wrote.
            record = try StateCoding.decode(AssemblyRecord.self, from: data).mappingFilePaths { $0.hasPrefix("/") ? $0 : root + "/" + $0 }
        } catch {
            throw StoredRecordRefusal(reason: "it cannot be read (\(error))")
        }
        guard id == record.id, record.keepsItsFiles(inside: root) else {
            throw StoredRecordRefusal(reason: "it names files outside the engine's data folder, or another id")
        }
        return record
    }
}

/// Why a stored Assembly record was not loaded.
struct StoredRecordRefusal: Error {
    let reason: String
}
