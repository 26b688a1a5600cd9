import Crypto

/// An MD5 digest as the service writes it (`md5hash`): 32 hexadecimal digits.
public enum MD5Text {
    /// The digest in lowercase; nil when `text` is not 32 hexadecimal digits (a server's
    /// malformed value checks nothing, and is never shown).
    public static func normalized(_ text: String) -> String? {
        Hex.decode(text).flatMap { $0.count == 16 ? Hex.encode($0) : nil }
    }
}
