/// An MD5 digest as the service writes it (`md5hash`): 32 hexadecimal digits.
public enum MD5Text {
    /// The digest in lowercase; nil when `text` is not 32 hexadecimal digits (a server's
    /// malformed value checks nothing, and is never shown).
    public static func normalized(_ text: String) -> String? {
        let lowered = text.lowercased()
        guard lowered.utf8.count == 32, lowered.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return lowered
    }
}
