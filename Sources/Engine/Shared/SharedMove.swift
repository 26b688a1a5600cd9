import Basics
import Foundation
import Postgres
import Wire

/// Copies what a data folder holds into the database and bucket engines share (`serve
/// --move-from`): every Assembly record with the files it names (at the keys shared engines
/// use: their paths relative to the folder), every Template, and the signatures not yet expired.
/// What the database holds already is left as it is, so a move cut short can be run again.
/// Unfinished tus uploads are not moved: their clients start them again.
public enum SharedMove {
    /// What a move copied.
    public struct Moved: Sendable, Equatable {
        /// Assembly records added, and those the database had already.
        public var assemblies = 0, alreadyThere = 0
        /// Files sent to the bucket, and those the folder no longer holds (their records say so when asked).
        public var files = 0, missingFiles = 0
        /// Templates added, and signatures not yet expired.
        public var templates = 0, signatures = 0
    }

    /// Moves the data folder `folder` into `backend`; `warn` hears of stored records that cannot be read.
    public static func run(from folder: String, into backend: SharedBackend, warn: @escaping @Sendable (String) -> Void) throws -> Moved {
        let data = RealPath.normalized(folder)
        let layout = EngineDataLayout(data)
        guard FileManager.default.fileExists(atPath: layout.assemblies) else {
            throw SharedBackendError(message: "\(folder) holds no engine data (no assemblies folder); give --move-from the old engine's --data-dir")
        }
        let opened = try backend.open(data: data, maximumUpload: 16 << 30, warn: warn)
        defer { opened.state.stop() }
        let store = try SharedAssemblyStore(state: opened.state, directory: layout.assemblies, clock: SystemClock(), warn: warn)
        var moved = Moved()
        for record in AssemblyStore.readAll(in: layout.assemblies) {
            let files: [AssemblyFile] = (record.uploads + record.results.values.flatMap { $0 }).filter { $0.inPlace == nil }
            let present = files.filter { file in
                var info = stat()
                return lstat(file.path, &info) == 0 && Int64(info.st_size) == file.size
            }
            moved.missingFiles += files.count - present.count
            do throws(RobotError) { try opened.files.publish(present) } catch {
                throw SharedBackendError(message: "Assembly \(record.id): \(error.message)")
            }
            moved.files += present.count
            if try store.insert(record) { moved.assemblies += 1 } else { moved.alreadyThere += 1 }
        }
        let templates = SharedTemplates(state: opened.state, warn: warn)
        for template in try TemplateStore(directory: data + "/templates", warn: warn).all where try templates.insert(template) {
            moved.templates += 1
        }
        moved.signatures = try SharedSignatures(state: opened.state, warn: warn).insert(ledgerAt: data + "/signatures.log")
        return moved
    }
}
