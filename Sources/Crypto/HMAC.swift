internal import COpenSSL

/// Keyed hashes and comparisons that do not leak timing.
public enum KeyedHash {
    /// The hash functions HMACs are made with.
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1, sha256, sha384
    }

    /// HMAC-SHA384 of `message` under `key`.
    public static func sha384(_ message: String, key: String) -> [UInt8] { hmac(.sha384, message, key: key) }

    /// HMAC-SHA256 of `message` under `key`.
    public static func sha256(_ message: String, key: String) -> [UInt8] { hmac(.sha256, message, key: key) }

    /// HMAC-SHA256 of `message` under the raw bytes `key` (chained keys, as AWS Signature V4 derives).
    public static func sha256(_ message: String, keyBytes key: [UInt8]) -> [UInt8] { hmac(.sha256, message, keyBytes: key) }

    /// The HMAC of `message`'s UTF-8 bytes under `key` with `algorithm`.
    public static func hmac(_ algorithm: Algorithm, _ message: String, key: String) -> [UInt8] {
        hmac(algorithm, message, keyBytes: Array(key.utf8))
    }

    /// The HMAC of `message`'s UTF-8 bytes under the raw bytes `keyBytes` with `algorithm`.
    public static func hmac(_ algorithm: Algorithm, _ message: String, keyBytes: [UInt8]) -> [UInt8] {
        let messageBytes = Array(message.utf8)
        let function = switch algorithm {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        keyBytes.withUnsafeBytes { keyBuffer in
            messageBytes.withUnsafeBytes { messageBuffer in
                _ = HMAC(
                    function, keyBuffer.baseAddress, Int32(keyBuffer.count),
                    messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBuffer.count, &digest, &length)
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    /// Whether two strings are equal, in time that does not depend on where they differ.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { l in right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 } }
    }
}
