import Basics
import Foundation
import HTTPClient

/// The files of engines that share them, in one bucket under a prefix, each at its path relative
/// to the data folder (`assemblies/ID/uploads/FILE`, `results/ID/…`): an engine keeps local copies
/// in its own folder, fetched when a step reads them or a client asks for them, and publishes what
/// its steps and uploads made. A result is published before the Assembly's end is stored (the
/// commit that names it), so no engine names a file it cannot fetch.
final class BucketFiles: SharedFiles {
    private let client: S3Client
    private let prefix: String
    /// This engine's data folder, which the bucket's layout mirrors.
    private let root: String

    init(client: S3Client, prefix: String, root: String) {
        (self.client, self.prefix, self.root) = (client, prefix, root)
    }

    /// The key of the local file at `path`; nil for a path outside the data folder.
    func key(of path: String) -> String? {
        RealPath.relative(path, inside: root).map { prefix + $0 }
    }

    func fetch(_ files: [AssemblyFile]) throws(RobotError) {
        for file in files where file.inPlace == nil && !Self.holds(file) { try copy(file, to: file.path) }
    }

    func copy(_ file: AssemblyFile, to path: String) throws(RobotError) {
        guard let key = key(of: file.path) else { throw RobotError(code: .storeError, message: "'\(file.name)' is not in the engine's folder") }
        let partial = path + ".fetching-" + UUID().uuidString
        do {
            try FileManager.default.createDirectory(atPath: FolderPath.of(path), withIntermediateDirectories: true)
            let client = client
            _ = try BlockingWait.result { try await client.getFile(key, to: partial, maxBytes: file.size) }.get()
            guard rename(partial, path) == 0 else { throw FileError(path: path, operation: "rename", code: errno) }
        } catch {
            unlink(partial)
            throw RobotError(code: .storeError, message: "'\(file.name)' could not be fetched from the shared store: \(error)")
        }
    }

    func dropLocalCopies(assembly id: String, inputs: [AssemblyFile]) {
        // Only copies this engine fetched into its folder (a finished tus upload's, outside the Assembly's folder).
        for file in inputs where file.inPlace == nil && key(of: file.path) != nil { unlink(file.path) }
        guard AssemblyStore.isValidID(id) else { return }
        FileSystem.cleanUp(root + "/assemblies/" + id)
        FileSystem.cleanUp(root + "/results/" + id)
    }

    func publish(_ files: [AssemblyFile]) throws(RobotError) {
        for file in files where file.inPlace == nil {
            guard let key = key(of: file.path) else { throw RobotError(code: .storeError, message: "'\(file.name)' is not in the engine's folder") }
            let client = client
            do {
                _ = try BlockingWait.result { try await client.putFile(file.path, size: file.size, key: key, headers: [("Content-Type", file.mime)]) }.get()
            } catch {
                throw RobotError(code: .storeError, message: "'\(file.name)' could not be stored for the other engines: \(error)")
            }
        }
    }

    /// Removes the local copies older than `age` of Assemblies not in `running` (those whose
    /// files arrived here and another engine ran), and answers' copies a cut request left.
    func sweepLocalCopies(olderThan age: TimeInterval, keeping running: Set<String>, now: Date = Date()) {
        let cutoff = Int(now.timeIntervalSince1970 - age)
        for folder in ["assemblies", "results", "serving"] {
            for name in FileSystem.namesOrNone(in: root + "/" + folder) where !running.contains(name) {
                var info = stat()
                guard lstat(root + "/" + folder + "/" + name, &info) == 0, info.st_mtim.tv_sec < cutoff else { continue }
                FileSystem.cleanUp(root + "/" + folder + "/" + name)
            }
        }
    }

    /// Whether this engine's folder holds `file` whole already.
    private static func holds(_ file: AssemblyFile) -> Bool {
        var info = stat()
        return lstat(file.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && Int64(info.st_size) == file.size
    }
}
