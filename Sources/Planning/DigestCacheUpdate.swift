import Basics
import Crypto
import Foundation

/// One plan's pass over a digest cache, piece by piece in the byte order of paths: for each piece
/// of paths, `remembered(for:)` gives the entries that may be trusted, and `record(_:_:_:)` later
/// writes the piece's new entries (pieces are looked up and recorded in the same order, and the
/// next piece may be looked up before the last is recorded); `finish()` puts the new cache in
/// place if anything changed. Old entries are read and new ones written as they go, so memory
/// does not grow with the number of files.
final class DigestCacheUpdate {
    private let reader: DigestCacheReader?
    private var writer: AtomicFileWriter?
    private let trustedBefore: Int64
    private let keepingOthers: Bool
    private let rehashing: Bool
    private var lookahead: (path: String, entry: RememberedDigest)?
    private var output: [UInt8] = []
    /// Whether the new content differs from the old, or the old had entries too new to trust
    /// (written again, a later plan may trust them).
    private var needsWriting = false

    /// What a piece's lookup found: each path's old entry, and kept entries of other paths that
    /// sort before it (written with the piece).
    struct Piece {
        fileprivate var matched: [RememberedDigest?] = []
        fileprivate var othersBefore: [Int: [(path: String, entry: RememberedDigest)]] = [:]
    }

    /// With `rehashing`, no entry is offered for this plan's files; other files' entries are kept
    /// (when `keepingOthers`) as far as they were trusted.
    init(reading reader: DigestCacheReader?, writing file: String?, stamp: Int64, slack: Int64, keepingOthers: Bool, rehashing: Bool = false) {
        self.reader = reader
        self.keepingOthers = keepingOthers
        self.rehashing = rehashing
        let (earlier, overflow) = (reader?.written ?? 0).subtractingReportingOverflow(slack)
        trustedBefore = overflow ? Int64.min : earlier
        writer = file.flatMap { try? AtomicFileWriter(path: $0) }
        output.reserveCapacity(Self.pieceSize + 8192)
        output += "\(DigestCache.magic) \(stamp)\n".utf8
        lookahead = reader?.next()
    }

    private static let pieceSize = 1 << 20

    /// For each of `keys` (ascending, and after every earlier piece's), the remembered digest that
    /// may be trusted if its file's identity still matches; `piece` goes to `record` with the keys.
    func remembered(for keys: [String]) -> (trusted: [RememberedDigest?], piece: Piece) {
        var piece = Piece()
        piece.matched.reserveCapacity(keys.count)
        var trusted: [RememberedDigest?] = []
        trusted.reserveCapacity(keys.count)
        for (index, key) in keys.enumerated() {
            while let old = lookahead, ByteOrder.precedes(old.path, key) {
                advance()
                // Another shard's entry is kept only if it was trusted: rewritten under this plan's
                // newer stamp, an entry made in its file's last clock tick would become trusted.
                if !keepingOthers || !isTrusted(old.entry) {
                    needsWriting = true
                } else {
                    piece.othersBefore[index, default: []].append(old)
                }
            }
            if let old = lookahead, ByteOrder.same(old.path, key) {
                advance()
                piece.matched.append(old.entry)
                trusted.append(!rehashing && isTrusted(old.entry) ? old.entry : nil)
            } else {
                piece.matched.append(nil)
                trusted.append(nil)
            }
        }
        return (trusted, piece)
    }

    /// Writes the entries of a piece `remembered(for:)` looked up: a digest is kept only when its
    /// file's identity was stat'ed before reading and did not change while read.
    func record(_ keys: [String], _ digests: [FileDigest?], _ piece: Piece) {
        for (index, (key, digest)) in zip(keys, digests).enumerated() {
            for other in piece.othersBefore[index] ?? [] { write(other.path, other.entry) }
            let entry = digest.flatMap { digest in digest.identity.map { RememberedDigest(identity: $0, digest: digest.digest) } }
            if let entry { write(key, entry) }
            if index >= piece.matched.count || piece.matched[index] != entry { needsWriting = true }
        }
    }

    /// Puts the new cache in place when it differs from the old one; leaves the old one otherwise.
    func finish() {
        while let old = lookahead {
            advance()
            if keepingOthers && isTrusted(old.entry) { write(old.path, old.entry) } else { needsWriting = true }
        }
        if reader?.damaged ?? false { needsWriting = true }
        guard let writer else { return }
        self.writer = nil
        guard needsWriting else { return writer.abandon() }
        output.withUnsafeBytes { writer.write($0) }
        // A cache lost to a power cut costs one full hashing, not correctness: no flush to disk.
        try? writer.commit(durable: false)
    }

    private func isTrusted(_ entry: RememberedDigest) -> Bool {
        max(entry.identity.modified, entry.identity.changed) < trustedBefore
    }

    private func advance() {
        if let old = lookahead, !isTrusted(old.entry) { needsWriting = true }
        lookahead = reader?.next()
    }

    private func write(_ path: String, _ entry: RememberedDigest) {
        guard let writer else { return }
        let identity = entry.identity
        for number in [identity.size, identity.modified, identity.changed] {
            output.appendDecimal(number)
            output.append(UInt8(ascii: " "))
        }
        for number in [identity.inode, identity.device] {
            output.appendDecimal(number)
            output.append(UInt8(ascii: " "))
        }
        entry.digest.appendHex(to: &output)
        output.append(UInt8(ascii: " "))
        output += path.utf8
        output.append(0)
        if output.count >= Self.pieceSize {
            output.withUnsafeBytes { writer.write($0) }
            output.removeAll(keepingCapacity: true)
        }
    }
}
