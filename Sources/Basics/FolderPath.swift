/// The folder part of a path, as `NSString.deletingLastPathComponent` gives it, which on Linux
/// crashes on a one-character path (`pipeline plan m`, `pipeline plan -`).
public enum FolderPath {
    /// `path` without its last component: "" for a bare name, "/" for a name at the root,
    /// trailing and repeated slashes dropped ("a/b/" and "a//b" give "a").
    public static func of(_ path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }
}
