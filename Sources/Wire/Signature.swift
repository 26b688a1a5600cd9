import Crypto
import Foundation

/// Transloadit-style signatures: `sha384:` and the lowercase hex HMAC-SHA384 of the exact
/// UTF-8 bytes of the params string, keyed with the Auth Secret.
public enum Signature {
    /// The prefix every signature carries.
    public static let prefix = "sha384:"

    /// The signature of `params` under `secret`.
    public static func sign(_ params: String, secret: String) -> String {
        prefix + Hex.encode(KeyedHash.sha384(params, key: secret))
    }

    /// Whether `text` has the shape of a signature: `sha384:` and 96 lowercase hex digits.
    public static func isWellFormed(_ text: String) -> Bool {
        guard text.hasPrefix(prefix) else { return false }
        let hex = text.dropFirst(prefix.count)
        return hex.count == 96 && hex.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// Compares two signatures in time that does not depend on where they differ.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        KeyedHash.constantTimeEquals(lhs, rhs)
    }
}
