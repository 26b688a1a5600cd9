import Foundation

/// A file written piece by piece into a temporary file beside `path` and renamed over it by
/// `commit`, so readers see the old content or the complete new content, never a part. A writer
/// that is neither committed nor abandoned removes its temporary file when it goes away.
public final class AtomicFileWriter {
    /// The file the content is for.
    public let path: String
    private let temporary: String
    private var descriptor: Int32
    private var failure: Int32?

    /// Creates the temporary file beside `path`, with permissions `mode` less the umask (a
    /// read-only mode still lets this writer write: the file is open already).
    public init(path: String, mode: mode_t = 0o644) throws(FileError) {
        self.path = path
        let directory = FolderPath.of(path)
        let unique = "\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
        temporary = (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).\(unique).tmp"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", code: errno) }
    }

    deinit { abandon() }

    /// Appends `bytes`; after a failed write the rest is dropped and `commit` reports the failure.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, descriptor >= 0 else { return }
        failure = SystemCall.writeAll(bytes, to: descriptor)
    }

    /// Appends `data`.
    public func write(_ data: Data) {
        data.withUnsafeBytes { write($0) }
    }

    /// Renames the content into place; with `durable` it is flushed to disk first, and the rename too.
    /// Returns what `fstat` says of the file put in place, after the rename.
    @discardableResult
    public func commit(durable: Bool = true) throws(FileError) -> stat {
        guard descriptor >= 0 else { throw FileError(path: path, operation: "write", code: EBADF) }
        if failure == nil, durable, fsync(descriptor) != 0 { failure = errno }
        let written = descriptor
        descriptor = -1
        defer { close(written) }
        if let failure {
            unlink(temporary)
            throw FileError(path: path, operation: "write", code: failure)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileError(path: path, operation: "rename into place", code: code)
        }
        var info = stat()
        fstat(written, &info)
        guard durable else { return info }
        let folder = FolderPath.of(path)
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
        return info
    }

    /// Removes the temporary file and leaves `path` as it was.
    public func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
    }
}
