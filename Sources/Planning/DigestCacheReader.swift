import Basics
import Crypto
import Foundation

/// Reads a digest cache (`DigestCacheFormat`) record by record through a fixed buffer of its own,
/// the current record read where it lies: paths are compared in place and made into strings only
/// when asked for, and nothing is allocated per record. Reading stops at the first malformed
/// record or path out of order, and `damaged` says so.
final class DigestCacheReader {
    /// When the cache was written (nanoseconds since 1970), from its header.
    private(set) var written: Int64 = 0
    /// Whether a malformed record ended the reading early.
    private(set) var damaged = false
    /// The current record's entry; nil at the end of the cache (or of what could be read).
    private(set) var entry: RememberedDigest?
    private let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    /// The unconsumed bytes are `buffer[start..<end]`; the current record is at `start`.
    private var start = 0, end = 0
    /// Where `buffer[start]` lies in the file.
    private var offset = 0
    /// The current record's size and its path's.
    private var currentSize = 0, pathLength = 0
    private var exhausted = false

    /// The reader of the cache at `file`, at its first record, if it is a regular file (not a
    /// link, a device or a pipe, which a checkout could plant to make planning block or read
    /// elsewhere) with a valid header.
    init?(file: String) {
        descriptor = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        // Two of the longest records fit, with room to read ahead.
        buffer = .allocate(byteCount: 1 << 20, alignment: 8)
        var info = stat()
        // Every property is set: returning nil runs `deinit`, which closes the file.
        guard descriptor >= 0, fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              fill(to: DigestCacheFormat.headerSize), let stamp = DigestCacheFormat.stamp(UnsafeRawBufferPointer(rebasing: buffer[..<end])) else { return nil }
        written = stamp
        consume(DigestCacheFormat.headerSize)
        advance()
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        buffer.deallocate()
    }

    /// Where the current record ends in the file.
    var recordEnd: Int { offset + currentSize }

    /// The current record's path.
    var path: String {
        guard entry != nil else { return "" }
        return String(decoding: currentPath, as: UTF8.self)
    }

    /// How the current record's path sorts against `key`, byte by byte: negative before it, zero
    /// for the same bytes, positive after it (and at the end of the cache).
    func compare(to key: String) -> Int {
        guard entry != nil else { return 1 }
        var key = key
        return key.withUTF8 { Self.order(currentPath, UnsafeRawBufferPointer($0)) }
    }

    /// The current record as a path and an entry, moving on to the next; nil at the end.
    func next() -> (path: String, entry: RememberedDigest)? {
        guard let entry else { return nil }
        let record = (path, entry)
        advance()
        return record
    }

    /// Moves on to the next record (the current one stays in the buffer until the next one is
    /// checked to sort after it).
    func advance() {
        let previous = currentSize
        entry = nil
        guard !damaged else { return }
        guard fill(to: start + previous + DigestCacheFormat.fixedSize) else {
            // The end of the file right after the previous record, or a record cut short.
            if end - start != previous { damaged = true }
            consume(previous)
            currentSize = 0
            return
        }
        guard let length = DigestCacheFormat.pathLength(UnsafeRawBufferPointer(rebasing: buffer[(start + previous)...])),
              fill(to: start + previous + DigestCacheFormat.fixedSize + length),
              let parsed = DigestCacheFormat.entry(UnsafeRawBufferPointer(rebasing: buffer[(start + previous)...])) else {
            damaged = true
            return
        }
        let next = start + previous  // after the filling, which may have moved the bytes
        let path = UnsafeRawBufferPointer(rebasing: buffer[next + DigestCacheFormat.fixedSize..<next + DigestCacheFormat.fixedSize + length])
        guard previous == 0 || Self.order(currentPath, path) < 0 else {
            damaged = true
            return
        }
        consume(previous)
        (currentSize, pathLength) = (DigestCacheFormat.fixedSize + length, length)
        entry = parsed
    }

    /// Hands the file's bytes in `range` to `sink` a buffer at a time, without moving the reading position.
    func copy(_ range: Range<Int>, to sink: (UnsafeRawBufferPointer) -> Void) throws(FileError) {
        try SystemCall.read(descriptor, range) { bytes, _ in
            sink(bytes)
            return true
        }
    }

    private var currentPath: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[start + DigestCacheFormat.fixedSize..<start + DigestCacheFormat.fixedSize + pathLength])
    }

    private func consume(_ count: Int) {
        start += count
        offset += count
    }

    /// Whether the buffer holds the file's bytes up to index `target`, reading more (after moving
    /// the unconsumed bytes to the front, which moves `target` with them) as needed.
    private func fill(to target: Int) -> Bool {
        var target = target
        while end < target {
            if start > 0 {
                if let base = buffer.baseAddress { memmove(base, base + start, end - start) }
                (target, end, start) = (target - start, end - start, 0)
                continue
            }
            guard !exhausted, end < buffer.count else { return false }
            let count = SystemCall.uninterrupted { read(descriptor, buffer.baseAddress.map { $0 + end }, buffer.count - end) }
            guard count > 0 else {
                exhausted = true  // a read error ends the cache like its end
                return false
            }
            end += count
        }
        return true
    }

    private static func order(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
            let order = memcmp(l, r, common)
            if order != 0 { return Int(order) }
        }
        return left.count - right.count
    }
}
