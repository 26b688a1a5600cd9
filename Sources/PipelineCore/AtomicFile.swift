import Foundation

/// Writes files so that a reader sees either the old or the complete new content.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `path`, flushes it to disk and renames it over `path`.
    public static func write(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        let unique = "\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
        let temporary = folder + "/.\((path as NSString).lastPathComponent).\(unique).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", code: errno) }
        var failure: Int32?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
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
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
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
