internal import COpenSSL

/// Keyed hashes and comparisons that do not leak timing.
public enum KeyedHash {
    /// HMAC-SHA384 of `message` under `key`.
    public static func sha384(_ message: String, key: String) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let messageBytes = Array(message.utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        keyBytes.withUnsafeBytes { keyBuffer in
            messageBytes.withUnsafeBytes { messageBuffer in
                _ = HMAC(
                    EVP_sha384(), keyBuffer.baseAddress, Int32(keyBuffer.count),
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
