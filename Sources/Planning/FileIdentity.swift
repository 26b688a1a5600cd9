import Basics
import Foundation

/// What `stat` says about a file: enough to tell that it has not changed since it was hashed.
struct FileIdentity: Sendable, Hashable {
    var size: Int64
    var modified: Int64
    var changed: Int64
    var inode: UInt64
    var device: UInt64

    /// The identity of the file at `path`, following symbolic links; nil when it cannot be had.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity `stat` describes; nil for anything but a regular file.
    init?(_ info: stat) {
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        size = Int64(info.st_size)
        modified = FileTime.nanoseconds(info.st_mtim)
        changed = FileTime.nanoseconds(info.st_ctim)
        inode = UInt64(info.st_ino)
        device = UInt64(info.st_dev)
    }

    init(size: Int64, modified: Int64, changed: Int64, inode: UInt64, device: UInt64) {
        (self.size, self.modified, self.changed, self.inode, self.device) = (size, modified, changed, inode, device)
    }
}
