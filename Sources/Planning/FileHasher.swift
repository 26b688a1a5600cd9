import Basics
import Crypto
import Foundation
import Synchronization

/// A file's size and SHA-256, as measured while reading it once.
public struct FileDigest: Sendable, Hashable {
    /// The number of bytes read.
    public var size: Int64
    /// The SHA-256 of those bytes.
    public var digest: SHA256Digest
    /// The modification time (nanoseconds since 1970) before the first byte was read.
    public var modified: Int64?
    /// The file's identity when it was stat'ed before reading and did not change while read.
    var identity: FileIdentity?
    /// What its content showed as it was read.
    public var inspection = ContentInspection(byte: 0)

    /// The lowercase hexadecimal SHA-256.
    public var sha256: String { digest.hex }
}

/// Streams files through OpenSSL's SHA-256 in large blocks, several files at once.
public enum FileHasher {
    /// The read size: large enough that system calls cost nothing next to hashing.
    public static let blockSize = 1 << 20

    /// The digest of one file.
    public static func digest(path: String) throws(HashingError) -> FileDigest {
        var buffer = [UInt8](repeating: 0, count: blockSize)
        return try digest(path: path, buffer: &buffer)
    }

    /// The digests of many files, in the same order, using up to `workers` threads. A file whose
    /// `remembered` digest was made from the version it still is (same identity) is only stat'ed.
    /// Relative paths are taken from `base` (joined one at a time, not held as a second list).
    static func digests(
        paths: [String], base: String? = nil, remembered: [RememberedDigest?]? = nil, confinement: String? = nil,
        workers: Int = ParallelWork.cores
    ) -> [Result<FileDigest, HashingError>] {
        // Remembered files are stat'ed from their folder (see `FolderCursor`): no joined path to
        // make, and one path component for the kernel to look up.
        let folder = base.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? AT_FDCWD
        defer { if folder >= 0, folder != AT_FDCWD { close(folder) } }
        return ParallelWork.map(count: paths.count, workers: workers, placeholder: .failure(HashingError(path: "", code: EIO))) {
            var buffer = [UInt8](repeating: 0, count: paths.count > 1000 ? 64 << 10 : blockSize)
            let cursor = FolderCursor(base: folder)
            return { index in
                func joined() -> String { base.map { paths[index].hasPrefix("/") ? paths[index] : $0 + "/" + paths[index] } ?? paths[index] }
                // Only a file with a remembered digest is stat'ed first; the others are opened at once.
                if let known = remembered?[index], let identity = folder >= 0 ? cursor.identity(paths[index]) : FileIdentity(path: joined()),
                   known.identity == identity {
                    return .success(FileDigest(size: identity.size, digest: known.digest, modified: identity.modified, identity: identity, inspection: known.inspection))
                }
                let path = joined()
                return Result { () throws(HashingError) in try digest(path: path, buffer: &buffer, confinement: confinement) }
            }
        }
    }

    /// The digests of many files, in the same order, using up to `workers` threads.
    public static func digests(paths: [String], workers: Int = ParallelWork.cores) -> [Result<FileDigest, HashingError>] {
        digests(paths: paths, remembered: nil, workers: workers)
    }

    private static func digest(path: String, buffer: inout [UInt8], confinement: String? = nil) throws(HashingError) -> FileDigest {
        let read: (digest: [UInt8], size: Int64, modified: Int64?, status: stat?)
        var inspector = ContentInspector()
        do {
            read = try StreamingDigest.file(
                path, algorithm: .sha256, buffer: &buffer, admit: { refusal(of: $0, confinement: confinement) }, observe: { inspector.feed($0) })
        } catch {
            throw HashingError(path: path, code: error.code, reason: error.reason)
        }
        guard let digest = SHA256Digest(bytes: read.digest) else { throw HashingError(path: path, code: EIO) }
        // Worth remembering only when the whole version stat'ed before the first byte was read.
        let identity = read.status.flatMap(FileIdentity.init).flatMap { $0.size == read.size ? $0 : nil }
        return FileDigest(size: read.size, digest: digest, modified: read.modified, identity: identity, inspection: inspector.finish())
    }
}

extension FileHasher {
    /// Why the open file `descriptor` may not be an input: it really is outside `confinement`, in
    /// the kernel's trees, or not a regular file; nil when it may.
    static func refusal(of descriptor: Int32, confinement: String?) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "it cannot be examined" }
        // A folder fails as it always has, when it is read (EISDIR).
        guard info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFDIR else { return "not a regular file" }
        guard let real = RealPath.of(descriptor: descriptor) else { return "its real path cannot be had" }
        if RealPath.isSystemTree(real) { return "it is '\(real)'; the kernel's /proc, /sys and /dev are never inputs" }
        if let confinement, !RealPath.isInside(real, confinement) { return "it leads to '\(real)', outside the folder inputs must stay inside" }
        return nil
    }
}

/// A file that could not be hashed.
public struct HashingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The `errno` value.
    public var code: Int32
    /// Why the file was refused once opened, when it was.
    public var reason: String?

    init(path: String, code: Int32, reason: String? = nil) {
        self.path = path
        self.code = code
        self.reason = reason
    }

    /// "cannot read 'x': Permission denied".
    public var description: String { "cannot read '\(path)': \(reason ?? String(cString: strerror(code)))" }
}
