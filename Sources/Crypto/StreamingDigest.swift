import Basics
internal import COpenSSL
internal import CDeflate
import Foundation

/// The digest algorithms the project uses (checksums, `/file/hash`, plan hashes). CRC-32 is
/// the gzip polynomial's, four bytes big-endian: a fast check against corruption in transit, not a hash.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case crc32, md5, sha1, sha256, sha384, sha512

    var evp: OpaquePointer? {
        switch self {
        case .crc32: nil
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }
}

/// A digest fed piece by piece (OpenSSL EVP, or libdeflate for CRC-32); its context is freed
/// with it. Every EVP call is checked: one that fails (no memory, an algorithm the OpenSSL
/// configuration disabled) makes `finish` answer `nil`, never a digest of something else.
public final class StreamingDigest: @unchecked Sendable {  // one owner at a time, as with any EVP context
    private enum State {
        case crc(UInt32)
        case evp(OpaquePointer)
        case failed(String)
    }

    private var state: State

    /// Starts a digest.
    public init(_ algorithm: DigestAlgorithm) {
        guard let evp = algorithm.evp else { state = .crc(0); return }
        guard let context = EVP_MD_CTX_new() else { state = .failed("EVP_MD_CTX_new"); return }
        guard EVP_DigestInit_ex(context, evp, nil) == 1 else {
            EVP_MD_CTX_free(context)
            state = .failed("EVP_DigestInit_ex(\(algorithm.rawValue))")
            return
        }
        state = .evp(context)
    }

    deinit {
        if case .evp(let context) = state { EVP_MD_CTX_free(context) }
    }

    /// The OpenSSL call that failed, if one did.
    public var failure: String? {
        if case .failed(let call) = state { return call }
        return nil
    }

    /// Adds `bytes`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0, let base = bytes.baseAddress else { return }
        switch state {
        case .crc(let crc): state = .crc(libdeflate_crc32(crc, base, bytes.count))
        case .evp(let context):
            if EVP_DigestUpdate(context, base, bytes.count) != 1 {
                EVP_MD_CTX_free(context)
                state = .failed("EVP_DigestUpdate")
            }
        case .failed: break
        }
    }

    /// The digest of everything added, or `nil` when OpenSSL failed (`failure` says where); call once.
    public func finish() -> [UInt8]? {
        switch state {
        case .crc(let crc): return (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) }
        case .evp(let context):
            var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context, &output, &length) == 1 else { return nil }
            return Array(output.prefix(Int(length)))
        case .failed: return nil
        }
    }

    /// The digest of bytes in memory, where OpenSSL fails only when memory runs out: then the
    /// process stops, as it does when any allocation fails.
    static func inMemory(_ algorithm: DigestAlgorithm, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let digest = StreamingDigest(algorithm)
        digest.update(bytes)
        guard let result = digest.finish() else { preconditionFailure("OpenSSL failed in \(digest.failure ?? "EVP_DigestFinal_ex")") }
        return result
    }

    /// The digest of `length` bytes of the file at `path` from `offset` (to its end when `nil`),
    /// read in blocks of `buffer`'s size (each shown to `observe` too), with what `fstat` said
    /// before the first byte was read; the error is the `errno` of a failed read.
    public static func file(
        _ path: String, algorithm: DigestAlgorithm, offset: Int64 = 0, length: Int64? = nil, buffer: inout [UInt8],
        admit: ((Int32) -> String?)? = nil, observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(FileDigestError) -> (digest: [UInt8], size: Int64, modified: Int64?, status: stat?) {
        // O_NONBLOCK: a FIFO put in a file's place must not hold the open until a writer comes;
        // its read then fails (or `admit` refuses it) at once. A regular file reads as ever.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw FileDigestError(path: path, code: errno) }
        defer { close(descriptor) }
        return try file(opened: descriptor, path: path, algorithm: algorithm, offset: offset, length: length, buffer: &buffer, admit: admit, observe: observe)
    }

    /// `file(_:…)` of a file already open as `descriptor` (left open); `path` names it in errors.
    public static func file(
        opened descriptor: Int32, path: String, algorithm: DigestAlgorithm, offset: Int64 = 0, length: Int64? = nil, buffer: inout [UInt8],
        admit: ((Int32) -> String?)? = nil, observe: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(FileDigestError) -> (digest: [UInt8], size: Int64, modified: Int64?, status: stat?) {
        // Judged on the file opened, so a link swapped in after any earlier check changes nothing.
        if let refusal = admit?(descriptor) { throw FileDigestError(path: path, code: EPERM, reason: refusal) }
        // The time of the version read: taken before the first byte, so any later write changes it.
        var info = stat()
        let known = fstat(descriptor, &info) == 0
        let modified = known ? FileTime.nanoseconds(info.st_mtim) : nil
        // A regular file's short read is its end: small files cost one read, not two.
        let regular = known && info.st_mode & S_IFMT == S_IFREG
        if !regular || Int64(info.st_size) - offset > Int64(buffer.count) {
            _ = posix_fadvise(descriptor, off_t(offset), off_t(length ?? 0), POSIX_FADV_SEQUENTIAL)
        }
        let digest = StreamingDigest(algorithm)
        var position = offset
        var remaining = length ?? Int64.max
        while remaining > 0 {
            let wanted = Int(min(Int64(buffer.count), remaining))
            let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { pread(descriptor, bytes.baseAddress, wanted, off_t(position)) } }
            if count < 0 { throw FileDigestError(path: path, code: errno) }
            if count == 0 {
                guard length == nil else { throw FileDigestError(path: path, code: EIO) }
                break
            }
            buffer.withUnsafeBytes { bytes in
                let read = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
                digest.update(read)
                observe?(read)
            }
            position += Int64(count)
            remaining -= Int64(count)
            if regular, length == nil, count < wanted { break }
        }
        guard let result = digest.finish() else { throw FileDigestError(path: path, code: EIO, reason: "OpenSSL failed in \(digest.failure ?? "EVP_DigestFinal_ex")") }
        return (result, position - offset, modified, known ? info : nil)
    }
}

/// A file that could not be read for its digest.
public struct FileDigestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The `errno` value (EIO when the file ended before the range did).
    public var code: Int32
    /// Why the file was refused after it was opened, when it was.
    public var reason: String?

    /// Creates an error.
    public init(path: String, code: Int32, reason: String? = nil) {
        self.path = path
        self.code = code
        self.reason = reason
    }

    /// "cannot read 'x': Permission denied".
    public var description: String { "cannot read '\(path)': \(reason ?? String(cString: strerror(code)))" }
}
