import Crypto
import Foundation

/// A checksum the tus `checksum` extension can carry.
public enum ChecksumAlgorithm: String, Sendable, CaseIterable {
    case crc32, sha256, sha1, md5

    /// The order in which algorithms are chosen when a server offers several: a chunk checksum
    /// guards against corruption in transit (TLS guards against tampering), and CRC-32 does that
    /// at several GB/s where SHA-256 costs both ends a core for every 2 GB.
    public static let preferred: [ChecksumAlgorithm] = [.crc32, .sha256, .sha1, .md5]

    /// The digest's length in bytes.
    public var digestLength: Int {
        switch self {
        case .crc32: 4
        case .sha256: 32
        case .sha1: 20
        case .md5: 16
        }
    }

    /// The digest that computes it.
    public var digest: DigestAlgorithm {
        switch self {
        case .crc32: .crc32
        case .sha256: .sha256
        case .sha1: .sha1
        case .md5: .md5
        }
    }

    /// `algorithm base64(digest)` of `length` bytes of the file at `path` from `offset`: the
    /// `Upload-Checksum` header value for a PATCH that sends exactly that range.
    public func headerValue(path: String, offset: Int64, length: Int64) throws(FileDigestError) -> String {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        return headerValue(digest: try StreamingDigest.file(path, algorithm: self.digest, offset: offset, length: length, buffer: &buffer).digest)
    }

    /// `algorithm base64(digest)`, as `Upload-Checksum` carries it.
    public func headerValue(digest: [UInt8]) -> String {
        "\(rawValue) \(Data(digest).base64EncodedString())"
    }
}
