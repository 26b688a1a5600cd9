import Crypto
import Foundation

/// The signature of an Assembly notification: the `signature` form field beside `transloadit`
/// (the status JSON), an HMAC of that field's exact text under the Auth Secret. Sent as
/// `sha384:` and hex; checked in the forms receivers meet: `sha1:`, `sha256:` or `sha384:` and
/// hex, or bare hex of an HMAC-SHA1 (the service's older form).
public enum NotificationSignature {
    /// The signature the engine sends for `payload`.
    public static func sign(_ payload: String, secret: String) -> String {
        "sha384:" + Hex.encode(KeyedHash.hmac(.sha384, payload, key: secret))
    }

    /// Whether `signature` is `payload`'s under `secret`, in time that does not depend on where they differ.
    public static func verify(_ payload: String, signature: String, secret: String) -> Bool {
        let trimmed = signature.trimmingCharacters(in: .whitespaces)
        let algorithm: KeyedHash.Algorithm?, hex: Substring
        if let colon = trimmed.firstIndex(of: ":") {
            algorithm = KeyedHash.Algorithm(rawValue: trimmed[..<colon].lowercased())
            hex = trimmed[trimmed.index(after: colon)...]
        } else {
            (algorithm, hex) = (.sha1, Substring(trimmed))
        }
        guard let algorithm, !hex.isEmpty, !secret.isEmpty else { return false }
        return KeyedHash.constantTimeEquals(Hex.encode(KeyedHash.hmac(algorithm, payload, key: secret)), hex.lowercased())
    }
}
