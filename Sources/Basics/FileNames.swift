/// File names from outside (uploads, result names) made safe to use as one path component.
public enum FileNames {
    /// The last path segment without leading dots, control characters or backslashes, at most
    /// 200 characters; `file` when nothing is left.
    public static func safeComponent(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        let cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != "\\" }.map(Character.init))
        let trimmed = cleaned.drop { $0 == "." }
        return trimmed.isEmpty ? "file" : String(trimmed.prefix(200))
    }
}
