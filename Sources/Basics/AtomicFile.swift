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
    /// a large file is never held in memory whole. When `produce` throws, nothing replaces the
    /// file (a non-regular target, written in place, keeps what was emitted). Returns what `fstat`
    /// says of the file put in place (`nil` for a target written in place).
    @discardableResult
    public static func write(to path: String, durable: Bool = true, _ produce: (_ emit: (Data) -> Void) throws -> Void) throws -> stat? {
        var info = stat()
        let existing = lstat(path, &info) == 0 ? info : nil
        if let existing, writesInPlace(path, existing) {
            // A descriptor of this process is written as it is, where it is: opened again, a file
            // behind it would be written from its start, under what the process writes to it.
            if let given = givenDescriptor(path) {
                if let failure = try writeAll(produce, to: given) { throw FileError(path: path, operation: "write", code: failure) }
                return nil
            }
            // A FIFO nothing reads (one planted in the project) fails within seconds, never waits
            // for good; a reader that is starting (`cat fifo &`) has those seconds to open it.
            let descriptor = try openForWriting(path, waitingForAReader: readerWait).get()
            defer { close(descriptor) }
            if let failure = try writeAll(produce, to: descriptor) { throw FileError(path: path, operation: "write", code: failure) }
            return nil
        }
        let mode = existing.flatMap { $0.st_mode & S_IFMT == S_IFREG ? narrowed($0.st_mode) : nil }
        let writer = try AtomicFileWriter(path: path, mode: mode ?? newFileMode)
        try produce { writer.write($0) }
        return try writer.commit(durable: durable)
    }

    /// How long a FIFO written in place is given for a reader to open it.
    static let readerWait: Duration = .seconds(2)

    /// The permissions a new file asks for (less the umask).
    public static let newFileMode: mode_t = 0o644

    /// The permissions a file that replaces one of `existing`'s mode asks for: a private file stays
    /// private, but nothing a new file would not have (no set-id, sticky, execute or group and
    /// others' write bit) is ever carried over from what was there.
    static func narrowed(_ existing: mode_t) -> mode_t { existing & newFileMode }

    /// Takes from the open regular file every permission a new file would not have (`narrowed`):
    /// for an output left in place because it already holds the right bytes.
    public static func narrowPermissions(of descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 != narrowed(info.st_mode) else { return }
        fchmod(descriptor, narrowed(info.st_mode))
    }

    /// Whether the existing `path` (as `lstat` describes it) is written into rather than replaced:
    /// a pipe, a device, or a link to a stream the process was given (`/dev/stdout`, `/dev/fd/1`,
    /// `/proc/self/fd/1`); renaming over those would replace the device or the link. Any other
    /// link is replaced by the new file, never written through: a checkout's link must not make
    /// a results file land elsewhere.
    /// The descriptor `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` names, if open.
    static func givenDescriptor(_ path: String) -> Int32? {
        let normalized = RealPath.normalized(path)
        let named: Int32? = switch normalized {
        case "/dev/stdout": 1
        case "/dev/stderr": 2
        case _ where normalized.hasPrefix("/dev/fd/"): Int32(normalized.dropFirst("/dev/fd/".count))
        case _ where normalized.hasPrefix("/proc/self/fd/"): Int32(normalized.dropFirst("/proc/self/fd/".count))
        default: nil
        }
        guard let named, named >= 0, fcntl(named, F_GETFD) != -1 else { return nil }
        return named
    }

    static func writesInPlace(_ path: String, _ info: stat) -> Bool {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return false
        case S_IFLNK:
            let normalized = RealPath.normalized(path)
            return normalized.hasPrefix("/dev/") || normalized.hasPrefix("/proc/")
        default: return true
        }
    }

    /// Writes every piece `produce` emits; the `errno` of the first failure, after which the rest is dropped.
    static func writeAll(_ produce: (_ emit: (Data) -> Void) throws -> Void, to descriptor: Int32) throws -> Int32? {
        var failure: Int32?
        try produce { data in
            if failure == nil { failure = data.withUnsafeBytes { SystemCall.writeAll($0, to: descriptor) } }
        }
        return failure
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
    /// Why, when `errno`'s text would not say it (a refused link).
    public var reason: String?

    /// Creates a file error.
    public init(path: String, operation: String, code: Int32, reason: String? = nil) {
        self.path = path
        self.operation = operation
        self.code = code
        self.reason = reason
    }

    /// Why, without the path: for messages to clients, which must not learn a server's folders.
    public var shortReason: String { reason ?? String(cString: strerror(code)) }

    /// "cannot read 'x': No such file or directory".
    public var description: String {
        "cannot \(operation) '\(path)': \(reason ?? String(cString: strerror(code)))"
    }
}
