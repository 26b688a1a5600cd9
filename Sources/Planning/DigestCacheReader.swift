import Basics
import Crypto
import Foundation

/// Reads a digest cache record by record through a bounded buffer. A record is five numbers
/// (size, mtime, ctime, inode, device) and a digest separated by spaces, a space, then the path
/// ended by a NUL (which no path contains); paths ascend in byte order. Reading stops at the
/// first malformed record, and `damaged` says so.
final class DigestCacheReader {
    /// When the cache was written (nanoseconds since 1970), from its header.
    private(set) var written: Int64 = 0
    /// Whether a malformed record ended the reading early.
    private(set) var damaged = false
    private let reader: BufferedFileReader
    private var lastPath: String?

    /// The reader of the cache at `file`, if it is a regular file (not a link, a device or a pipe,
    /// which a checkout could plant to make planning block or read elsewhere) with a valid header.
    init?(file: String) {
        guard let reader = BufferedFileReader(path: file, followingLinks: false) else { return nil }
        self.reader = reader
        guard let header = nextLine(), let stamp = Self.stamp(header) else { return nil }
        written = stamp
    }

    /// The next record, or nil at the end of the file or at a malformed record.
    func next() -> (path: String, entry: RememberedDigest)? {
        guard !damaged, let record = nextRecord() else { return nil }
        guard let parsed = Self.parse(record) else {
            damaged = true
            return nil
        }
        let path = String(decoding: parsed.path, as: UTF8.self)
        guard lastPath.map({ ByteOrder.precedes($0, path) }) ?? true else {
            damaged = true
            return nil
        }
        lastPath = path
        return (path, parsed.entry)
    }

    private func nextLine() -> ArraySlice<UInt8>? { nextPiece(endingWith: UInt8(ascii: "\n")) }

    private func nextRecord() -> ArraySlice<UInt8>? {
        let piece = nextPiece(endingWith: 0)
        if piece == nil, !reader.available.isEmpty { damaged = true }
        return piece
    }

    /// The bytes up to the next `terminator` (which is consumed), reading more as needed; nil at
    /// the end of the file, or when a piece is longer than the buffer (which is malformed).
    private func nextPiece(endingWith terminator: UInt8) -> ArraySlice<UInt8>? {
        while true {
            let available = reader.available
            if let found = available.firstIndex(of: terminator) {
                let piece = available[..<found]
                reader.consume(found - available.startIndex + 1)
                return piece
            }
            guard (try? reader.fill()) == true else { return nil }
        }
    }

    private static func stamp(_ header: ArraySlice<UInt8>) -> Int64? {
        let words = String(decoding: header, as: UTF8.self).split(separator: " ")
        guard words.count == 3, words[0] + " " + words[1] == DigestCache.magic, let stamp = Int64(words[2]), stamp >= 0 else { return nil }
        return stamp
    }

    private static func parse(_ record: ArraySlice<UInt8>) -> (path: ArraySlice<UInt8>, entry: RememberedDigest)? {
        var position = record.startIndex
        func number() -> Int64? {
            let negative = position < record.endIndex && record[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            var value: Int64 = 0
            let first = position
            while position < record.endIndex, record[position] >= 48, record[position] <= 57 {
                let (product, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = product + Int64(record[position] - 48)
                position += 1
            }
            guard position > first, position < record.endIndex, record[position] == UInt8(ascii: " ") else { return nil }
            position += 1
            return negative ? -value : value
        }
        guard let size = number(), let modified = number(), let changed = number(), let inode = number(), let device = number(),
              size >= 0, let inode = UInt64(exactly: inode), let device = UInt64(exactly: device),
              record.endIndex - position > 65, record[position + 64] == UInt8(ascii: " "),
              let digest = record[position..<position + 64].withUnsafeBufferPointer({ SHA256Digest(hexDigits: $0) }) else { return nil }
        let identity = FileIdentity(size: size, modified: modified, changed: changed, inode: inode, device: device)
        return (record[(position + 65)...], RememberedDigest(identity: identity, digest: digest))
    }
}
