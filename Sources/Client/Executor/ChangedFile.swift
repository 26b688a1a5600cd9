import Basics
import Foundation
import Planning

/// A file that differs from what was planned (its size, or its modification time when it was
/// hashed): uploading it would send bytes whose SHA-256 is not the one the results record.
struct ChangedFile: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String {
        "'\(path)' changed since it was planned (\(reason)); run again to plan and upload its new content"
    }

    /// Throws when the file at `path` (absolute) is no longer the one `planned` describes, or
    /// now leads out of `project` (a link put in its place since it was planned: what it leads
    /// to is not said).
    static func check(_ path: String, planned: PlannedFile, project: String) throws(ChangedFile) {
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
    }
}
