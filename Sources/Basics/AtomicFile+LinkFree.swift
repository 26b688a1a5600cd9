import Foundation

extension AtomicFile {
    /// Writes like `write(to:durable:_:)`, for a file below the project: below `trusted` (the
    /// manifest's folder) every folder on the way is opened without following links (a committed
    /// `build -> /elsewhere` is refused, never written through), and the file is created and renamed
    /// into place relative to that open folder, so no link swapped in meanwhile can redirect it. A
    /// folder outside `trusted` is one the user named: links in it are followed. Missing folders are
    /// created; a pipe or device (`/dev/stdout`) is written in place, as `write(to:)` does.
    @discardableResult
    public static func write(to path: String, below trusted: String, durable: Bool = true, _ produce: (_ emit: (Data) -> Void) throws -> Void) throws -> stat? {
        var existing = stat()
        if lstat(path, &existing) == 0, writesInPlace(path, existing) { return try write(to: path, durable: durable, produce) }
        let normalized = RealPath.normalized(path)
        let name = (normalized as NSString).lastPathComponent
        let folder = try LinkFreeFolder.open(FolderPath.of(normalized), below: trusted)
        let replaced: mode_t? = fstatat(folder.descriptor, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 && existing.st_mode & S_IFMT == S_IFREG
            ? existing.st_mode : nil
        let (descriptor, temporary) = try folder.createTemporary(for: name)
        defer { close(descriptor) }
        var failure: Int32?
        do {
            failure = try writeAll(produce, to: descriptor)
        } catch {
            folder.remove(temporary)
            throw error
        }
        // The new file's permissions (the umask's), narrowed by the old file's, never widened.
        var created = stat()
        if failure == nil, let replaced, fstat(descriptor, &created) == 0 { fchmod(descriptor, narrowed(replaced) & created.st_mode & 0o777) }
        if failure == nil, durable, fsync(descriptor) != 0 { failure = errno }
        if let failure {
            folder.remove(temporary)
            throw FileError(path: path, operation: "write", code: failure)
        }
        try folder.rename(temporary, to: name)
        if durable { fsync(folder.descriptor) }
        var info = stat()
        fstat(descriptor, &info)
        return info
    }

    /// Writes `data` like `write(to:below:durable:_:)`.
    public static func write(_ data: Data, to path: String, below trusted: String, durable: Bool = true) throws {
        try write(to: path, below: trusted, durable: durable) { emit in emit(data) }
    }
}
