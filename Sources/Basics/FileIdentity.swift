import Foundation

/// Which version of which file a path names: its device and inode, size, modification time, and
/// status change time with its link count.
/// A file read where it is (not copied) is checked against the identity it had when it was
/// handed over: another file put in its place, or the same one written to, no longer matches.
public struct FileIdentity: Codable, Sendable, Equatable {
    /// The device the file is on.
    public var device: Int
    /// Its inode on that device.
    public var inode: Int
    /// Its size in bytes.
    public var size: Int64
    /// Its modification time, in nanoseconds since 1970.
    public var modified: Int64
    /// Its status change time, in nanoseconds since 1970 (nil in records older versions wrote).
    public var changed: Int64?
    /// Its number of hard links (nil in records older versions wrote).
    public var links: Int?

    /// The identity of the regular file at `path` (a link is followed); a missing or unreadable
    /// file, or one that is not regular, is an error naming the path.
    public static func of(_ path: String) throws(FileError) -> FileIdentity {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileError(path: path, operation: "stat", code: errno) }
        return try Self(info, path: path)
    }

    /// The identity of the open file `descriptor` (opened from `path`, which errors name).
    public static func of(descriptor: Int32, path: String) throws(FileError) -> FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileError(path: path, operation: "stat", code: errno) }
        return try Self(info, path: path)
    }

    private init(_ info: stat, path: String) throws(FileError) {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileError(path: path, operation: "read", code: EINVAL, reason: "it is not a regular file")
        }
        (device, inode) = (Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino))
        (size, modified) = (Int64(info.st_size), FileTime.nanoseconds(info.st_mtim))
        (changed, links) = (FileTime.nanoseconds(info.st_ctim), Int(info.st_nlink))
    }

    /// Why `now` is not this version of this file, if it is not: replaced, resized or written to.
    public func change(to now: FileIdentity) -> String? {
        if now.device != device || now.inode != inode { return "another file was put in its place" }
        if now.size != size { return "it had \(size) bytes when it was handed over, it has \(now.size)" }
        if now.modified != modified { return "it was written to after it was handed over" }
        // Written with its time set back: the change time moved, and no link was made or removed
        // (which moves it too, as a hand-over of the same file to another Assembly does).
        if let changed, let links, now.changed != changed, now.links == links { return "it was written to after it was handed over" }
        return nil
    }

    /// Why the file at `path` is no longer this one, if it is not: gone, replaced, resized or written to.
    public func change(at path: String) -> String? {
        do { return change(to: try Self.of(path)) } catch { return error.shortReason }
    }
}
