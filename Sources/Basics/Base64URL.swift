import Foundation

/// Base64url without padding, as JWTs use it.
public enum Base64URL {
    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The bytes `text` encodes; nil when it is not unpadded base64url (padding, `+`, `/` and
    /// white space are refused, so one value has one spelling).
    public static func decode(_ text: Substring) -> Data? {
        guard text.utf8.count % 4 != 1, text.utf8.allSatisfy({ alphabet.contains($0) }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        // The unused low bits of the last character must be zero, or the same bytes have several spellings.
        guard let data = Data(base64Encoded: base64), encode(data) == text else { return nil }
        return data
    }

    /// `data` as unpadded base64url.
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The claims of a JWT, read without checking its signature (for a holder to see when its own
    /// token expires; never to trust it); nil when `token` is no JWT.
    public static func unverifiedClaims(of token: String) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = decode(parts[1]) else { return nil }
        return JSONValue.parseIfValid(payload)?.objectValue
    }
}
