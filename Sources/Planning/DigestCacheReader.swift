import Basics
import Crypto
import Foundation

/// Reads a digest cache (`DigestCacheFormat`) record by record through a bounded buffer, the
/// current record read in place: paths are compared where they lie and made into strings only
/// when asked for. Reading stops at the first malformed record or path out of order, and
/// `damaged` says so.
final class DigestCacheReader {
    /// When the cache was written (nanoseconds since 1970), from its header.
    private(set) var written: Int64 = 0
    /// Whether a malformed record ended the reading early.
    private(set) var damaged = false
    /// The current record's entry; nil at the end of the cache (or of what could be read).
    private(set) var entry: RememberedDigest?
    private let reader: BufferedFileReader
    /// The size of the current record, which is at the front of the reader's bytes.
    private var currentSize = 0

    /// The reader of the cache at `file`, at its first record, if it is a regular file (not a
    /// link, a device or a pipe, which a checkout could plant to make planning block or read
    /// elsewhere) with a valid header.
    init?(file: String) {
        guard let reader = BufferedFileReader(path: file, followingLinks: false) else { return nil }
        self.reader = reader
        guard fill(to: DigestCacheFormat.headerSize), let stamp = reader.withAvailable(DigestCacheFormat.stamp) else { return nil }
        written = stamp
        reader.consume(DigestCacheFormat.headerSize)
        advance()
    }

    /// Where the current record ends in the file.
    var recordEnd: Int { reader.offset + currentSize }

    /// The current record's path.
    var path: String {
        guard entry != nil else { return "" }
        return reader.withAvailable { String(decoding: Self.path(ofRecordAt: $0), as: UTF8.self) }
    }

    /// How the current record's path sorts against `key`, byte by byte: negative before it, zero
    /// for the same bytes, positive after it (and at the end of the cache).
    func compare(to key: String) -> Int {
        guard entry != nil else { return 1 }
        var key = key
        return key.withUTF8 { key in
            reader.withAvailable { Self.order(Self.path(ofRecordAt: $0), UnsafeRawBufferPointer(key)) }
        }
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
        guard fill(to: previous + DigestCacheFormat.fixedSize) else {
            // The end of the file right after the previous record, or a record cut short.
            if reader.withAvailable({ $0.count }) != previous { damaged = true }
            reader.consume(previous)
            currentSize = 0
            return
        }
        let parsed: RememberedDigest? = {
            guard let length = reader.withAvailable({ DigestCacheFormat.pathLength(UnsafeRawBufferPointer(rebasing: $0[previous...])) }),
                  fill(to: previous + DigestCacheFormat.fixedSize + length) else { return nil }
            return reader.withAvailable { bytes in
                let record = UnsafeRawBufferPointer(rebasing: bytes[previous...])
                guard let entry = DigestCacheFormat.entry(record) else { return nil }
                guard previous == 0 || Self.order(Self.path(ofRecordAt: bytes), Self.path(ofRecordAt: record)) < 0 else { return nil }
                return entry
            }
        }()
        guard let parsed else {
            damaged = true
            return
        }
        reader.consume(previous)
        currentSize = DigestCacheFormat.fixedSize + reader.withAvailable { DigestCacheFormat.pathLength($0) ?? 0 }
        entry = parsed
    }

    /// Hands the file's bytes in `range` to `sink`, without moving the reading position.
    func copy(_ range: Range<Int>, to sink: (UnsafeRawBufferPointer) -> Void) throws(FileError) {
        try reader.copy(range, to: sink)
    }

    /// Whether at least `count` bytes are read and not consumed, reading more as needed.
    private func fill(to count: Int) -> Bool {
        while reader.withAvailable({ $0.count }) < count {
            guard (try? reader.fill()) == true else { return false }  // a read error ends the cache like its end
        }
        return true
    }

    /// The path of the record at the start of `bytes`, which hold all of it.
    private static func path(ofRecordAt bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let length = DigestCacheFormat.pathLength(bytes) ?? 0
        return UnsafeRawBufferPointer(rebasing: bytes[DigestCacheFormat.fixedSize..<DigestCacheFormat.fixedSize + length])
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
