import Basics
import Crypto
import Foundation

/// The SHA-256 of each file a report previewed, with the identity (size, times, inode) it had
/// when it was read, so the next report knows an unchanged file's content without reading it
/// again (a large video costs a `stat`, not a pass over its bytes). Kept beside the previews,
/// with paths relative to the manifest's folder, only for the files the last report read.
/// Input, never truth beyond saving a read: a file that differs in any of those is hashed again.
struct PreviewDigests {
    /// A file as it was when hashed.
    struct Record: Codable, Equatable {
        var path: String
        var size: Int64
        var modified: Int64
        var changed: Int64
        var inode: UInt64
        var device: UInt64
        var sha256: String
    }

    /// A file changed less than this before it was hashed is hashed again next time: on a file
    /// system with coarse times a write in the same tick leaves them as they were.
    static let settled: Int64 = 2_000_000_000

    /// The file's name in the previews folder.
    static let fileName = "digests.json"

    private var known: [Data: Record] = [:]
    /// The records of the files read this time, the only ones written back.
    private(set) var kept: [Data: Record] = [:]

    /// The records `data` lists (none when it does not read).
    init(_ data: Data?) {
        let records = data.flatMap { try? StateCoding.decode([Record].self, from: $0) } ?? []  // a cache: damaged means none
        known = Dictionary(records.map { (Data($0.path.utf8), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The SHA-256 of the open regular file `descriptor` (named `name` here, relative to the
    /// project), from the record when `info` still matches it, else read; nil when it cannot be read.
    mutating func sha256(of descriptor: Int32, name: String, info: stat) -> String? {
        let key = Data(name.utf8)
        let now = Self.record(info, name: name, sha256: "")
        if let record = known[key], record == Self.record(info, name: name, sha256: record.sha256) {
            kept[key] = record
            return record.sha256
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        guard let read = try? StreamingDigest.file(opened: descriptor, path: name, algorithm: .sha256, buffer: &buffer) else { return nil }  // unreadable: no preview
        let digest = Hex.encode(read.digest)
        // Remembered only when the file did not change while it was read, and not just before.
        var after = stat()
        let stamp = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
        if fstat(descriptor, &after) == 0, Self.record(after, name: name, sha256: "") == now,
           stamp - max(now.modified, now.changed) > Self.settled {
            kept[key] = Self.record(info, name: name, sha256: digest)
        }
        return digest
    }

    /// The records to write back, in byte order of their paths.
    var encoded: Data? {
        try? StateCoding.encoder.encode(kept.values.sorted { ByteOrder.precedes($0.path, $1.path) })
    }

    private static func record(_ info: stat, name: String, sha256: String) -> Record {
        Record(
            path: name, size: Int64(info.st_size), modified: FileTime.nanoseconds(info.st_mtim), changed: FileTime.nanoseconds(info.st_ctim),
            inode: UInt64(info.st_ino), device: UInt64(info.st_dev), sha256: sha256)
    }
}
