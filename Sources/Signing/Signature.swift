import COpenSSL
import Foundation
import PipelineCore

/// Transloadit-style signatures: `sha384:` and the lowercase hex HMAC-SHA384 of the exact
/// UTF-8 bytes of the params string, keyed with the Auth Secret.
public enum Signature {
    /// The prefix every signature carries.
    public static let prefix = "sha384:"

    /// The signature of `params` under `secret`.
    public static func sign(_ params: String, secret: String) -> String {
        let key = Array(secret.utf8)
        let message = Array(params.utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                _ = HMAC(
                    EVP_sha384(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &digest, &length)
            }
        }
        return prefix + Hex.encode(digest.prefix(Int(length)))
    }

    /// Whether `text` has the shape of a signature: `sha384:` and 96 lowercase hex digits.
    public static func isWellFormed(_ text: String) -> Bool {
        guard text.hasPrefix(prefix) else { return false }
        let hex = text.dropFirst(prefix.count)
        return hex.count == 96 && hex.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// Compares two signatures in time that does not depend on where they differ.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { l in right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 } }
    }
}
