import COpenSSL
import Foundation

/// A checksum the tus `checksum` extension can carry, computed with OpenSSL.
public enum ChecksumAlgorithm: String, Sendable, CaseIterable {
    case sha256, sha1, md5

    /// The order in which algorithms are chosen when a server offers several.
    public static let preferred: [ChecksumAlgorithm] = [.sha256, .sha1, .md5]

    /// OpenSSL's digest for this algorithm.
    public var evpDigest: OpaquePointer? {
        switch self {
        case .sha256: EVP_sha256()
        case .sha1: EVP_sha1()
        case .md5: EVP_md5()
        }
    }

    /// `algorithm base64(digest)` of `length` bytes of the file at `path` from `offset`: the
    /// `Upload-Checksum` header value for a PATCH that sends exactly that range.
    public func headerValue(path: String, offset: Int64, length: Int64) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ChecksumError(path: path, code: errno) }
        defer { close(descriptor) }
        guard let context = EVP_MD_CTX_new() else { throw ChecksumError(path: path, code: ENOMEM) }
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, evpDigest, nil)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = offset
        var remaining = length
        while remaining > 0 {
            let wanted = Int(min(Int64(buffer.count), remaining))
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(position)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ChecksumError(path: path, code: count < 0 ? errno : EIO) }
            buffer.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, count) }
            position += Int64(count)
            remaining -= Int64(count)
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var size: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &size)
        return "\(rawValue) \(Data(output.prefix(Int(size))).base64EncodedString())"
    }
}

/// A file range that could not be read for its checksum.
public struct ChecksumError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The `errno` value.
    public var code: Int32

    /// "cannot read 'x' for its checksum: ...".
    public var description: String { "cannot read '\(path)' for its checksum: \(String(cString: strerror(code)))" }
}
