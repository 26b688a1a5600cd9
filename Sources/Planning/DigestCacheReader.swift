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
    private let descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0, end = 0
    private var exhausted = false
    private var lastPath: String?

    private static let bufferSize = 1 << 20

    /// The reader of the cache at `file`, if it is a regular file (not a link, a device or a pipe,
    /// which a checkout could plant to make planning block or read elsewhere) with a valid header.
    init?(file: String) {
        descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        buffer = [UInt8](repeating: 0, count: Self.bufferSize)
        var info = stat()
        // Every property is set from here on: a failure returns nil, and `deinit` closes the file.
        guard descriptor >= 0, fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let header = nextLine(), let stamp = Self.stamp(header) else { return nil }
        written = stamp
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
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
        if piece == nil, start < end { damaged = true }
        return piece
    }

    /// The bytes up to the next `terminator` (which is consumed), reading more as needed.
    private func nextPiece(endingWith terminator: UInt8) -> ArraySlice<UInt8>? {
        while true {
            if let found = buffer[start..<end].firstIndex(of: terminator) {
                defer { start = found + 1 }
                return buffer[start..<found]
            }
            guard !exhausted, fill() else { return nil }
        }
    }

    /// Moves the unread bytes to the front and reads more after them; false when nothing more came.
    private func fill() -> Bool {
        if start > 0 {
            buffer.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                memmove(base, base + start, end - start)
            }
            end -= start
            start = 0
        }
        guard end < buffer.count else { return false }  // a record longer than the buffer is malformed
        let count = buffer.withUnsafeMutableBytes { bytes in
            var result: Int
            repeat { result = read(descriptor, bytes.baseAddress.map { $0 + end }, bytes.count - end) } while result < 0 && errno == EINTR
            return result
        }
        guard count > 0 else {
            exhausted = true
            return false
        }
        end += count
        return true
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
