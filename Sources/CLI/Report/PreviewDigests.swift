import Basics
import Crypto
import Foundation

/// The SHA-256 of each file a report previewed, with the identity (`FileIdentity`) it had
/// when it was read, so the next report knows an unchanged file's content without reading it
/// again (a large video costs a `stat`, not a pass over its bytes). Kept beside the previews,
/// with paths relative to the manifest's folder, only for the files the last report read.
/// Input, never truth beyond saving a read: a file that differs in any of those is hashed again.
struct PreviewDigests {
    /// A file as it was when hashed.
    struct Record: Codable, Equatable {
        var path: String
        var identity: FileIdentity
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
        let records = StateCoding.cached([Record].self, from: data) ?? []
        known = Dictionary(records.map { (Data($0.path.utf8), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The SHA-256 of the open regular file `descriptor` (named `name` here, relative to the
    /// project), from the record when the file is still the version it describes, else read; nil
    /// when it cannot be read.
    mutating func sha256(of descriptor: Int32, name: String) -> String? {
        let key = Data(name.utf8)
        guard let now = try? FileIdentity.of(descriptor: descriptor, path: name) else { return nil }  // not a regular file: no preview
        if let record = known[key], record.identity == now {
            kept[key] = record
            return record.sha256
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        guard let read = try? StreamingDigest.file(opened: descriptor, path: name, algorithm: .sha256, buffer: &buffer) else { return nil }  // unreadable: no preview
        let digest = Hex.encode(read.digest)
        // Remembered only when the file did not change while it was read, and not just before (one
        // that cannot be examined now is not remembered).
        let stamp = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
        if (try? FileIdentity.of(descriptor: descriptor, path: name)) == now,  // see above
           stamp - max(now.modified, now.changed ?? now.modified) > Self.settled {
            kept[key] = Record(path: name, identity: now, sha256: digest)
        }
        return digest
    }

    /// The records to write back, in byte order of their paths.
    var encoded: Data? {
        try? StateCoding.encoder.encode(kept.values.sorted { ByteOrder.precedes($0.path, $1.path) })  // a cache: unwritten, previews are made again
    }
}
