import Basics
import Foundation
import Planning

/// A file that differs from what was planned (its size, its modification time when it was hashed,
/// or its content once its inode or change time moved): uploading it would send bytes whose
/// SHA-256 is not the one the results record.
struct ChangedFile: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String {
        "'\(path)' changed since it was planned (\(reason)); run again to plan and upload its new content"
    }

    /// Throws when the file at `path` (absolute) is no longer the one `planned` describes, or
    /// now leads out of `project` (a link put in its place since it was planned: what it leads
    /// to is not said). Without `comparingStatus` a moved change time is not looked into (once
    /// uploaded: an engine on this machine links the file, which moves it).
    static func check(_ path: String, planned: PlannedFile, project: String, comparingStatus: Bool = true) throws(ChangedFile) {
        guard let real = RealPath.of(path), let root = RealPath.of(project), RealPath.isInside(real, root) else {
            throw ChangedFile(path: planned.path, reason: "it no longer is a file of the project (a link to elsewhere?)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw ChangedFile(path: planned.path, reason: String(cString: strerror(errno))) }
        guard Int64(info.st_size) == planned.size else {
            throw ChangedFile(path: planned.path, reason: "\(planned.size) bytes were planned, it has \(info.st_size)")
        }
        let modified = FileTime.nanoseconds(info.st_mtim)
        if let expected = planned.modified, modified != expected {
            throw ChangedFile(path: planned.path, reason: "it was modified after it was hashed")
        }
        // A rewrite of the same size with its time set back moves the change time, and so does a
        // new link or mode: the content decides, read again only then.
        guard comparingStatus, let status = planned.status, status != (UInt64(info.st_ino), FileTime.nanoseconds(info.st_ctim)) else { return }
        let now: FileDigest
        do { now = try FileHasher.digest(path: path) } catch { throw ChangedFile(path: planned.path, reason: error.description) }
        guard now.digest == planned.digest else {
            throw ChangedFile(path: planned.path, reason: "its content is no longer the one hashed, though its size and time are")
        }
    }
}
