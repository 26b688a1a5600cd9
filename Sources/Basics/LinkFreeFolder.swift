import Foundation

/// A folder opened component by component without following symbolic links, for writing files
/// that must land where their path says: a link committed inside it (`out/linked -> /elsewhere`)
/// is refused instead of receiving the file.
public final class LinkFreeFolder: Sendable {
    /// The path the folder was opened as, for messages.
    public let path: String
    /// The open folder; closed when this goes away.
    public let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Opens `path`, creating missing folders. The part of `path` up to and including `trusted`
    /// (a folder the user named, such as the manifest's) is opened as it is; every component
    /// below it must be a real folder, not a link. Without a `trusted` prefix of `path`, only
    /// `path` itself is trusted.
    public static func open(_ path: String, below trusted: String?) throws(FileError) -> LinkFreeFolder {
        let normalized = RealPath.normalized(path)
        var start = normalized
        var rest: [Substring] = []
        if let trusted {
            let base = RealPath.normalized(trusted)
            if normalized == base || normalized.hasPrefix(base == "/" ? "/" : base + "/") {
                start = base
                rest = normalized.dropFirst(base.count).split(separator: "/")
            }
        }
        try Self.createFolders(start)
        var current = Foundation.open(start, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { throw FileError(path: start, operation: "open folder", code: errno) }
        var shown = start
        for component in rest {
            shown += "/" + component
            let name = String(component)
            if mkdirat(current, name, 0o755) != 0, errno != EEXIST {
                let code = errno
                close(current)
                throw FileError(path: shown, operation: "create folder", code: code)
            }
            let next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(current)
            guard next >= 0 else { throw Self.refusal(shown, code: code) }
            current = next
        }
        return LinkFreeFolder(path: normalized, descriptor: current)
    }

    /// The folder `relative` (a path of components below `trusted`) as it is, created nowhere:
    /// nil when it is missing, or a link or no folder is on the way below `trusted`.
    public static func existing(_ relative: String, below trusted: String) -> LinkFreeFolder? {
        var current = Foundation.open(trusted, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { return nil }
        for component in relative.split(separator: "/") {
            let next = openat(current, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(current)
            guard next >= 0 else { return nil }
            current = next
        }
        return LinkFreeFolder(path: RealPath.normalized(trusted + "/" + relative), descriptor: current)
    }

    /// The folder `name` inside this one, created when missing; a link there is refused.
    public func subfolder(_ name: String) throws(FileError) -> LinkFreeFolder {
        let shown = path + "/" + name
        if mkdirat(descriptor, name, 0o755) != 0, errno != EEXIST { throw FileError(path: shown, operation: "create folder", code: errno) }
        let opened = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw Self.refusal(shown, code: errno) }
        return LinkFreeFolder(path: shown, descriptor: opened)
    }

    /// The regular file `name` in this folder, opened for reading without following a link;
    /// nil when there is none (or something else is there).
    public func openFile(_ name: String) -> Int32? {
        let opened = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else { return nil }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            return nil
        }
        return opened
    }

    /// A new temporary file in this folder for the content of `name` (open to write and to read
    /// back): its descriptor and name.
    public func createTemporary(for name: String) throws(FileError) -> (descriptor: Int32, name: String) {
        let temporary = ".\(name).\(getpid()).\(UInt64.random(in: 0...UInt64.max)).part"
        let opened = openat(descriptor, temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw FileError(path: path + "/" + temporary, operation: "create", code: errno) }
        return (opened, temporary)
    }

    /// Renames `temporary` over `name`; a link named `name` is replaced, never followed.
    public func rename(_ temporary: String, to name: String) throws(FileError) {
        guard renameat(descriptor, temporary, descriptor, name) == 0 else {
            let code = errno
            unlinkat(descriptor, temporary, 0)
            throw FileError(path: path + "/" + name, operation: "rename into place", code: code)
        }
    }

    /// Puts a copy of the regular file at `source` into this folder as `name`, whole or not at
    /// all (copied beside it, then renamed over it); the bytes copied. A `source` that is a link
    /// is refused unless `followingLinks`.
    @discardableResult
    public func placeCopy(of source: String, as name: String, followingLinks: Bool = false) throws(FileError) -> Int64 {
        let (descriptor, temporary) = try createTemporary(for: name)
        defer { close(descriptor) }
        do {
            let copied = try Self.copy(source, to: descriptor, followingLinks: followingLinks)
            try rename(temporary, to: name)
            return copied
        } catch {
            remove(temporary)
            throw error
        }
    }

    /// Copies the regular file at `path` (a link refused unless `followingLinks`) into `descriptor`; the bytes copied.
    public static func copy(_ path: String, to descriptor: Int32, followingLinks: Bool = false) throws(FileError) -> Int64 {
        let source = Foundation.open(path, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard source >= 0 else { throw FileError(path: path, operation: "open", code: errno) }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw FileError(path: path, operation: "copy", code: EINVAL, reason: "it is not a regular file; not copied")
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { read(source, bytes.baseAddress, bytes.count) } }
            guard count >= 0 else { throw FileError(path: path, operation: "read", code: errno) }
            if count == 0 { return total }
            if let failure = buffer.withUnsafeBytes({ SystemCall.writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count]), to: descriptor) }) {
                throw FileError(path: path, operation: "copy", code: failure)
            }
            total += Int64(count)
        }
    }

    /// Removes the file `name` from this folder, if it is there.
    public func remove(_ name: String) {
        unlinkat(descriptor, name, 0)
    }

    /// Creates `path` and the folders above it that are missing (links in it are followed: it is trusted).
    private static func createFolders(_ path: String) throws(FileError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw FileError(path: prefix, operation: "create folder", code: errno) }
        }
    }

    /// Why a component could not be opened as a folder, saying so when it is a link.
    private static func refusal(_ path: String, code: Int32) -> FileError {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            return FileError(path: path, operation: "write into", code: ELOOP, reason: "it is a symbolic link, and pipeline never writes through links below the manifest's folder (remove it)")
        }
        return FileError(path: path, operation: "open folder", code: code)
    }
}

