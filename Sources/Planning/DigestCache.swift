import Basics
import Crypto
import Foundation

/// A digest an earlier plan made, with the identity of the file version it was made from.
struct RememberedDigest: Sendable, Equatable {
    var identity: FileIdentity
    var digest: SHA256Digest
    /// What the content showed when it was hashed.
    var inspection = ContentInspection(byte: 0)
}

/// File digests remembered by file identity (size, mtime, ctime, inode, device), the way git's
/// index does, so planning an unchanged tree again only stats it. An entry is trusted only when
/// its file's times are older than the cache's own writing by more than `slack`: a file changed
/// in the same clock tick as it was hashed (same size, same second) is hashed again.
///
/// The file (`DigestCacheFormat`) lists entries in the byte order of their paths, as plans list
/// files, so a plan reads the old entries and writes the new ones in one pass, a piece at a time
/// (`DigestCacheUpdate`): the cache never has to be held in memory whole.
public struct DigestCache: Sendable {
    let file: String
    let slack: Int64
    let rehashing: Bool
    /// When this plan began (the cache is opened before any file is read): the time the entries
    /// it writes were made at the earliest, so a file changed just after it was hashed stays racy.
    let opened: Date

    /// The cache kept in `file` (missing or unreadable: empty); with `rehashing`, nothing in it is
    /// trusted, every file is hashed and the cache written anew; `opened` is when planning began.
    public init(file: String, slack: Duration = .seconds(2), rehashing: Bool = false, opened: Date = Date()) {
        self.file = file
        self.slack = slack.components.seconds * 1_000_000_000 + slack.components.attoseconds / 1_000_000_000
        self.rehashing = rehashing
        self.opened = opened
    }

    /// Starts one plan's pass over the cache; the other files' entries are forgotten, or kept when
    /// `keepingOthers` (a shard's plan sees only its share).
    func update(keepingOthers: Bool) -> DigestCacheUpdate {
        // Rehashing a shard still reads the cache: the other shards' entries are kept.
        let writable = StateFile.mayWrite(file)
        let update = DigestCacheUpdate(
            reading: rehashing && !keepingOthers ? nil : DigestCacheReader(file: file), writing: writable ? file : nil,
            stamp: Int64(opened.timeIntervalSince1970 * 1_000_000_000), slack: slack, keepingOthers: keepingOthers, rehashing: rehashing)
        if !writable { update.unwritable = "it or a folder above it is a link, a pipe or a device" }
        return update
    }
}
