import Basics
import Foundation
import Synchronization

/// The MD5 of each file downloads wrote or checked, with the size, modification and change times
/// and inode it had then: a download still exactly as it was is known to match its `md5hash` without being
/// read again, so a daily run over large results does not hash them all. Kept in the manifest's
/// state, relative to the manifest's folder, as a list (a JSON object would merge two paths that
/// differ only by Unicode normalization, which are two files). It is input, never truth beyond
/// saving a read: a file that differs in any of those is read again, and a record only ever says
/// "this file is the one already checked".
final class DownloadDigests: Sendable {
    private struct Record: Codable, Equatable {
        var size: Int64
        var modified: Int64
        /// The inode's change time, which no one sets back (unlike the modification time).
        var changed: Int64?
        var inode: UInt64
        var md5: String
    }

    /// A record as the state file lists it.
    private struct Saved: Codable {
        var path: String
        var file: Record
    }

    private let file: String
    private let trusted: String
    private let records: Mutex<(known: [ExactName: Record], changed: Bool)>

    /// The records in `file` (none when missing or unreadable); paths are named relative to `trusted`.
    init(file: String, trusted: String) {
        self.file = file
        self.trusted = trusted
        // A file older versions wrote is an object by path.
        let saved = StateCoding.cached([Saved].self, at: file)
            ?? StateCoding.cached([String: Record].self, at: file).map { $0.map { Saved(path: $0.key, file: $0.value) } } ?? []
        records = Mutex((Dictionary(saved.map { (ExactName($0.path), $0.file) }, uniquingKeysWith: { first, _ in first }), false))
    }

    /// The MD5 recorded for the file at `path` when `info` (its `fstat`) is what it was then.
    func md5(of path: String, info: stat) -> String? {
        let key = key(path)
        return records.withLock { records in
            guard let record = records.known[key], record == Self.record(info, md5: record.md5) else { return nil }
            return record.md5
        }
    }

    /// Whether the file at `path` is, as `info` (its `lstat`) says, exactly one a download wrote or checked.
    func wrote(_ path: String, info: stat) -> Bool { md5(of: path, info: info) != nil }

    /// Remembers that the file at `path`, as `info` describes it, has the MD5 `md5`.
    func record(_ path: String, info: stat, md5: String) {
        let key = key(path)
        let record = Self.record(info, md5: md5)
        records.withLock { records in
            guard records.known[key] != record else { return }
            records.known[key] = record
            records.changed = true
        }
    }

    /// Writes the records when they changed, keeping only those of files still there. A state
    /// file that cannot be written only means the files are read again next time.
    func save() {
        let known: [ExactName: Record]? = records.withLock { records in
            guard records.changed else { return nil }
            records.changed = false
            return records.known
        }
        guard let known else { return }
        let kept = known.filter { path, _ in FileManager.default.fileExists(atPath: ProjectPath.isRelative(path.text) ? trusted + "/" + path.text : path.text) }
        StateCoding.saveCache(kept.sorted { $0.key < $1.key }.map { Saved(path: $0.key.text, file: $0.value) }, to: file, below: trusted)
    }

    private func key(_ path: String) -> ExactName { ExactName(RealPath.relative(path, inside: trusted) ?? RealPath.normalized(path)) }

    private static func record(_ info: stat, md5: String) -> Record {
        Record(size: Int64(info.st_size), modified: FileTime.nanoseconds(info.st_mtim), changed: FileTime.nanoseconds(info.st_ctim), inode: UInt64(info.st_ino), md5: md5)
    }
}
