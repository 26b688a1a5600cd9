import Basics
import Crypto

/// The digest cache's file, version 3: binary and fixed-width like git's index, so reading a record
/// is a few loads rather than parsing text. A header (the line `pipeline-digests 2`, then the time
/// the cache was written in nanoseconds since 1970) is followed by one record per file, in the
/// byte order of paths: the path's length (4 bytes), the file's size, mtime, ctime, inode and
/// device (8 bytes each), its SHA-256 (32 bytes), what its content showed (`ContentInspection`, one
/// byte), then the path. Numbers are little-endian. A version 2 cache is not read: its files were
/// never inspected, so they are hashed (and inspected) once more.
enum DigestCacheFormat {
    static let magic = Array("pipeline-digests 3\n".utf8)
    static let headerSize = magic.count + 8
    /// A record's bytes before its path.
    static let fixedSize = 4 + 5 * 8 + 32 + 1
    /// Longer paths are damage (Linux paths are at most 4,096 bytes).
    static let longestPath = 1 << 16

    /// The header of a cache written at `stamp`.
    static func header(stamp: Int64) -> [UInt8] {
        var bytes = magic
        append(stamp, to: &bytes)
        return bytes
    }

    /// The stamp of a header at the start of `bytes`; nil unless it is a version 3 header.
    static func stamp(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard bytes.count >= headerSize, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
        let stamp = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: magic.count, as: Int64.self))
        return stamp >= 0 ? stamp : nil
    }

    /// Appends the record of `path`.
    static func append(_ path: String, _ entry: RememberedDigest, to output: inout [UInt8]) {
        let identity = entry.identity
        append(UInt32(truncatingIfNeeded: path.utf8.count), to: &output)
        for number in [identity.size, identity.modified, identity.changed, Int64(bitPattern: identity.inode), Int64(bitPattern: identity.device)] {
            append(number, to: &output)
        }
        entry.digest.appendBytes(to: &output)
        output.append(entry.inspection.byte)
        output += path.utf8
    }

    /// The length of the path of the record starting at `bytes` (which hold at least `fixedSize`);
    /// nil when it cannot be a path.
    static func pathLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        return length > 0 && length <= longestPath ? length : nil
    }

    /// The entry of the record starting at `bytes`; nil for a negative size.
    static func entry(_ bytes: UnsafeRawBufferPointer) -> RememberedDigest? {
        func number(_ index: Int) -> Int64 { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 + 8 * index, as: Int64.self)) }
        let identity = FileIdentity(
            size: number(0), modified: number(1), changed: number(2), inode: UInt64(bitPattern: number(3)), device: UInt64(bitPattern: number(4)))
        guard identity.size >= 0, let digest = bytes.baseAddress.map({ SHA256Digest(raw: $0 + 44) }) else { return nil }
        return RememberedDigest(identity: identity, digest: digest, inspection: ContentInspection(byte: bytes[76]))
    }

    private static func append<Number: FixedWidthInteger>(_ number: Number, to output: inout [UInt8]) {
        withUnsafeBytes(of: number.littleEndian) { output.append(contentsOf: $0) }
    }
}
