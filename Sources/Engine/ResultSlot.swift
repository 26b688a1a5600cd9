import Basics
import Crypto
import Foundation

/// Where a robot writes one result file: a fresh id, its own folder under the Assembly's results,
/// and a name made safe to use as a path component.
struct ResultSlot: Sendable {
    let id: String
    let name: String
    let path: String

    /// Makes the folder for a result named `name` under `folder`.
    init(name: String, in folder: String) throws(RobotError) {
        id = AssemblyFile.newID()
        self.name = FileNames.safeComponent(name)
        let directory = folder + "/" + id
        path = directory + "/" + self.name
        // One mkdir where the Assembly's folder exists (every result but the first); Foundation's
        // walk up the path took a tenth of a small image's time.
        guard mkdir(directory, 0o777) != 0 else { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RobotError(code: .internalCommandError, message: "cannot store the result '\(self.name)'")
        }
    }

    private init(id: String, name: String, path: String) {
        self.id = id
        self.name = name
        self.path = path
    }

    /// The same slot with its file renamed to (a safe form of) `name`.
    func renamed(to name: String) throws(RobotError) -> ResultSlot {
        let safe = FileNames.safeComponent(name)
        let target = FolderPath.of(path) + "/" + safe
        guard safe == self.name || rename(path, target) == 0 else {
            throw RobotError(code: .internalCommandError, message: "cannot store the result '\(safe)'")
        }
        return ResultSlot(id: id, name: safe, path: target)
    }

    /// Removes the slot's folder and whatever it holds.
    func remove() {
        FileSystem.cleanUp(FolderPath.of(path))
    }

    /// The size of the written file (a `stat`: Foundation's attributes read the user and group
    /// databases for each file).
    private var storedSize: Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// The MD5 (lowercase hex) of the file at `path`, of `size` bytes, which the status gives as
    /// `md5hash` for clients to check downloads by; nil when it cannot be read (serving it fails too).
    static func md5(of path: String, size: Int64) -> String? {
        // No larger than the file: a thumbnail of a few KiB does not clear a MiB to be read.
        var buffer = [UInt8](repeating: 0, count: Int(min(max(size, 4096), 1 << 20)))
        return (try? StreamingDigest.file(path, algorithm: .md5, buffer: &buffer)).map { Hex.encode($0.digest) }  // unreadable: no md5hash
    }

    /// The file once written, as a file of its own (an import): its own original.
    func imported(mime: String?, meta: [String: JSONValue]) -> AssemblyFile {
        let size = storedSize
        var file = FileFacts.describe(id: id, name: name, field: "", path: path, size: size, mime: mime, isTus: false)
        file.meta.merge(meta) { _, added in added }
        file.md5 = Self.md5(of: path, size: size)
        return file
    }

    /// The result file once written, derived from `source`, with `meta` added to what its kind
    /// reports; `imageSize` is the image's when the robot knows it (its header is then not read).
    /// `own`: the file is its own original (made of many sources, such as an archive).
    func file(from source: AssemblyFile, meta: [String: JSONValue] = [:], imageSize: (width: Int, height: Int)? = nil, own: Bool = false) -> AssemblyFile {
        let size = storedSize
        var file = FileFacts.describe(
            id: id, name: name, field: source.field, path: path, size: size, mime: nil, isTus: false,
            original: own ? nil : (source.originalID, source.originalName), imageSize: imageSize)
        file.meta.merge(meta) { _, added in added }
        file.md5 = Self.md5(of: path, size: size)
        return file
    }
}
