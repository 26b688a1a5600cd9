import Basics
import Crypto
import Foundation

/// A file to upload and what identifies its content cheaply: absolute path, size, modification
/// time and a digest of its content.
public struct LocalFile: Sendable, Hashable {
    /// The absolute path.
    public var path: String
    /// The size in bytes.
    public var size: Int64
    /// The modification time in nanoseconds since 1970.
    public var modified: Int64
    /// The SHA-256 (hex) of the first and last 64 KiB, or `sha256:` and the whole file's when a
    /// plan hashed this version of it.
    public var sample: String

    /// Reads the identity of the file at `path`. `known` is a plan's digest of the file and the
    /// modification time it had then: while the file still has that time, the digest identifies
    /// it and none of its bytes are read here.
    public static func identify(_ path: String, known: (sha256: String, modified: Int64)? = nil) throws(LocalFileError) -> LocalFile {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        // O_NONBLOCK: a FIFO must not block the open; it is refused below as not a regular file.
        let descriptor = open(absolute, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw LocalFileError(path: path, code: errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw LocalFileError(path: path, code: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw LocalFileError(path: path, code: EISDIR) }
        let size = Int64(info.st_size)
        let modified = FileTime.nanoseconds(info.st_mtim)
        // Where the open file really is (one readlink, where resolving the path by name reads each folder's link).
        let real = RealPath.of(descriptor: descriptor) ?? (absolute as NSString).standardizingPath
        if let known, known.modified == modified {
            return LocalFile(path: real, size: size, modified: modified, sample: "sha256:" + known.sha256)
        }
        let window = 64 << 10
        var bytes = [UInt8](repeating: 0, count: Int(min(size, Int64(window * 2))))
        let head = min(bytes.count, window)
        let tail = bytes.count - head
        let (readHead, readTail) = bytes.withUnsafeMutableBytes { buffer -> (Int, Int) in
            guard let base = buffer.baseAddress else { return (0, 0) }
            let first = pread(descriptor, base, head, 0)
            let last = tail == 0 ? 0 : pread(descriptor, base + head, tail, off_t(size - Int64(tail)))
            return (first, last)
        }
        guard readHead == head, readTail == tail else { throw LocalFileError(path: path, code: errno == 0 ? EIO : errno) }
        let sample = SHA256.hex(bytes)
        return LocalFile(path: real, size: size, modified: modified, sample: sample)
    }
}

extension LocalFile {
    /// Why the file at `path` is no longer this version (size or modification time), if it is not.
    public func change() -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        if Int64(info.st_size) != size { return "it had \(size) bytes when the upload began, it has \(info.st_size)" }
        if FileTime.nanoseconds(info.st_mtim) != modified { return "it was modified during the upload" }
        return nil
    }
}

/// A file that cannot be uploaded: missing, unreadable or not a regular file.
public struct LocalFileError: Error, Sendable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    /// The `errno` value.
    public var code: Int32

    /// "cannot read 'x': No such file or directory".
    public var description: String {
        code == EISDIR ? "'\(path)' is not a regular file" : "cannot read '\(path)': \(String(cString: strerror(code)))"
    }
}
