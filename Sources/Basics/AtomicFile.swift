import Foundation

/// Writes files so that a reader sees either the old or the complete new content.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `path`, flushes it to disk and renames it over `path`.
    /// A `path` that exists and is not a regular file (`/dev/stdout`, a pipe, a device) is written
    /// in place instead: renaming over it would replace the device with a file. Without `durable`
    /// nothing is flushed: a reader still sees the old or the new content whole, and a killed process
    /// loses nothing, but a power cut may lose the write (for state that is rewritten often).
    public static func write(_ data: Data, to path: String, durable: Bool = true) throws {
        try write(to: path, durable: durable) { emit in emit(data) }
    }

    /// Writes what `produce` emits, piece by piece, with the same guarantees as `write(_:to:)`:
    /// a large file is never held in memory whole.
    public static func write(to path: String, durable: Bool = true, _ produce: (_ emit: (Data) -> Void) -> Void) throws {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileError(path: path, operation: "open", code: errno) }
            defer { close(descriptor) }
            if let failure = writeAll(produce, to: descriptor) { throw FileError(path: path, operation: "write", code: failure) }
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        let unique = "\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
        let temporary = folder + "/.\((path as NSString).lastPathComponent).\(unique).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", code: errno) }
        var failure = writeAll(produce, to: descriptor)
        if failure == nil, durable, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw FileError(path: path, operation: "write", code: failure)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileError(path: path, operation: "rename into place", code: code)
        }
        // Make the rename itself durable.
        guard durable else { return }
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// Writes every piece `produce` emits; the `errno` of the first failure, after which the rest is dropped.
    private static func writeAll(_ produce: (_ emit: (Data) -> Void) -> Void, to descriptor: Int32) -> Int32? {
        var failure: Int32?
        produce { data in
            if failure == nil { failure = writeAll(data, to: descriptor) }
        }
        return failure
    }

    /// Writes every byte; the `errno` of the first failure, if any.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}

/// A failed file system call, naming the file and the reason.
public struct FileError: Error, Sendable, CustomStringConvertible {
    /// The file the operation was about.
    public var path: String
    /// What was being done: "read", "write", ...
    public var operation: String
    /// The `errno` value.
    public var code: Int32

    /// Creates a file error.
    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    /// "cannot read 'x': No such file or directory".
    public var description: String {
        "cannot \(operation) '\(path)': \(String(cString: strerror(code)))"
    }
}
