import Crypto
import Foundation

/// A checksum the tus `checksum` extension can carry.
public enum ChecksumAlgorithm: String, Sendable, CaseIterable {
    case sha256, sha1, md5

    /// The order in which algorithms are chosen when a server offers several.
    public static let preferred: [ChecksumAlgorithm] = [.sha256, .sha1, .md5]

    /// The digest that computes it.
    public var digest: DigestAlgorithm {
        switch self {
        case .sha256: .sha256
        case .sha1: .sha1
        case .md5: .md5
        }
    }

    /// `algorithm base64(digest)` of `length` bytes of the file at `path` from `offset`: the
    /// `Upload-Checksum` header value for a PATCH that sends exactly that range.
    public func headerValue(path: String, offset: Int64, length: Int64) throws(FileDigestError) -> String {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let digest = try StreamingDigest.file(path, algorithm: self.digest, offset: offset, length: length, buffer: &buffer).digest
        return "\(rawValue) \(Data(digest).base64EncodedString())"
    }
}
