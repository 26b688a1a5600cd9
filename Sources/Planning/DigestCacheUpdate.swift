import Basics
import Crypto
import Foundation

/// One plan's pass over a digest cache, piece by piece in the byte order of paths: for each piece
/// of paths, `remembered(for:)` gives the entries that may be trusted, and `record(_:_:_:)` later
/// writes the piece's new entries (pieces are looked up and recorded in the same order, and the
/// next piece may be looked up before the last is recorded); `finish()` puts the new cache in
/// place if anything changed. Old entries are read and new ones written as they go, so memory
/// does not grow with the number of files.
///
/// Like git's index, an unchanged cache is left alone at no cost: while every record this plan
/// would write is the old file's own, nothing is encoded or written. Should a difference come,
/// the old file's bytes up to there are copied into the new one and writing goes on from there.
final class DigestCacheUpdate {
    private let reader: DigestCacheReader?
    private let file: String?
    private var writer: AtomicFileWriter?
    private var started = false
    private let stamp: Int64
    private let trustedBefore: Int64
    private let keepingOthers: Bool
    private let rehashing: Bool
    private var output: [UInt8] = []
    /// Whether the new content differs from the old, or the old had entries too new to trust
    /// (written again, a later plan may trust them).
    private(set) var needsWriting = false
    /// Why the cache could not be written when it needed to be (nil when it was, or had not to be).
    var unwritable: String?
    /// While nothing needs writing, the records recorded so far are the old file's up to here.
    private var unchangedThrough = DigestCacheFormat.headerSize

    /// An old record: its entry and where it ends in the old file.
    fileprivate struct Old {
        var entry: RememberedDigest
        var end: Int
    }

    /// What a piece's lookup found: each path's old record, and kept records of other paths that
    /// sort before it (written with the piece).
    struct Piece {
        fileprivate var matched: [Old?] = []
        fileprivate var othersBefore: [Int: [(path: String, old: Old)]] = [:]
    }

    /// With `rehashing`, no entry is offered for this plan's files; other files' entries are kept
    /// (when `keepingOthers`) as far as they were trusted.
    init(reading reader: DigestCacheReader?, writing file: String?, stamp: Int64, slack: Int64, keepingOthers: Bool, rehashing: Bool = false) {
        self.reader = reader
        self.file = file
        self.stamp = stamp
        self.keepingOthers = keepingOthers
        self.rehashing = rehashing
        let (earlier, overflow) = (reader?.written ?? 0).subtractingReportingOverflow(slack)
        trustedBefore = overflow ? Int64.min : earlier
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
            var order = reader?.compare(to: key) ?? 1
            while order < 0, let old = takeOld() {
                // Another shard's entry is kept only if it was trusted: rewritten under this plan's
                // newer stamp, an entry made in its file's last clock tick would become trusted.
                if let old { piece.othersBefore[index, default: []].append(old) } else { needsWriting = true }
                order = reader?.compare(to: key) ?? 1
            }
            if order == 0, let reader, let entry = reader.entry {
                piece.matched.append(Old(entry: entry, end: reader.recordEnd))
                trusted.append(!rehashing && isTrusted(entry) ? entry : nil)
                advance()
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
            for other in piece.othersBefore[index] ?? [] { write(other.path, other.old.entry, unchangedEnd: other.old.end) }
            let entry = digest.flatMap { digest in digest.identity.map { RememberedDigest(identity: $0, digest: digest.digest, inspection: digest.inspection) } }
            let matched = index < piece.matched.count ? piece.matched[index] : nil
            if matched?.entry != entry { needsWriting = true }
            if let entry { write(key, entry, unchangedEnd: matched?.end) }
        }
    }

    /// Puts the new cache in place when it differs from the old one; leaves the old one otherwise.
    func finish() {
        while let old = takeOld() {
            if let old { write(old.path, old.old.entry, unchangedEnd: old.old.end) } else { needsWriting = true }
        }
        if reader?.damaged ?? false { needsWriting = true }
        guard needsWriting else { return }
        startWriting()
        guard let writer else { return }
        self.writer = nil
        output.withUnsafeBytes { writer.write($0) }
        // A cache lost to a power cut costs one full hashing, not correctness: no flush to disk.
        _ = try? writer.commit(durable: false)  // a cache: see above
    }

    /// Moves past the current old record, which sorts before every key still to come: the record
    /// to keep (another shard's trusted entry), or `.some(nil)` for one to drop; nil at the end.
    private func takeOld() -> (path: String, old: Old)?? {
        guard let reader, let entry = reader.entry else { return nil }
        let kept = keepingOthers && isTrusted(entry) ? (reader.path, Old(entry: entry, end: reader.recordEnd)) : nil
        advance()
        return .some(kept)
    }

    private func isTrusted(_ entry: RememberedDigest) -> Bool {
        max(entry.identity.modified, entry.identity.changed) < trustedBefore
    }

    private func advance() {
        if let old = reader?.entry, !isTrusted(old) { needsWriting = true }
        reader?.advance()
    }

    /// Writes a record; `unchangedEnd` is where it ends in the old file when it is the old one.
    private func write(_ path: String, _ entry: RememberedDigest, unchangedEnd: Int?) {
        if !needsWriting, let unchangedEnd {
            unchangedThrough = unchangedEnd
            return
        }
        needsWriting = true
        startWriting()
        guard let writer else { return }
        DigestCacheFormat.append(path, entry, to: &output)
        if output.count >= Self.pieceSize {
            output.withUnsafeBytes { writer.write($0) }
            output.removeAll(keepingCapacity: true)
        }
    }

    /// Opens the new cache once, with the new header and the old records that stay as they were.
    private func startWriting() {
        guard !started, let file else { return }
        started = true
        // A cache that cannot be written is no cache: the next plan hashes again, and is told why.
        let writer: AtomicFileWriter
        do throws(FileError) {
            writer = try AtomicFileWriter(path: file)
        } catch {
            unwritable = String(cString: strerror(error.code))
            return
        }
        DigestCacheFormat.header(stamp: stamp).withUnsafeBytes { writer.write($0) }
        if let reader, unchangedThrough > DigestCacheFormat.headerSize {
            do {
                try reader.copy(DigestCacheFormat.headerSize..<unchangedThrough) { writer.write($0) }
            } catch {
                return writer.abandon()  // the old file changed under us: leave it, the next plan hashes again
            }
        }
        output.reserveCapacity(Self.pieceSize + 8192)
        self.writer = writer
    }
}
