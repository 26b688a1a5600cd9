import Foundation

/// File names from outside (uploads, result names) made safe to use as one path component.
public enum FileNames {
    /// The longest name kept, in UTF-8 bytes: well under the 255 bytes file systems allow, so a
    /// suffix (`-1`, a variant's extension) still fits.
    public static let maxBytes = 200

    /// The last path segment without leading dots, control characters or backslashes, at most
    /// `maxBytes` long (cut on a character boundary, keeping a short extension); `file` when
    /// nothing is left.
    public static func safeComponent(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        let cleaned = String(last.unicodeScalars.filter { !TerminalText.isControl($0) && $0 != "\\" }.map(Character.init))
        let trimmed = String(cleaned.drop { $0 == "." })
        return trimmed.isEmpty ? "file" : shortened(trimmed)
    }

    private static func shortened(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let pathExtension = (name as NSString).pathExtension
        let suffix = pathExtension.isEmpty || pathExtension.utf8.count > 16 ? "" : "." + pathExtension
        var kept = ""
        for character in name.dropLast(suffix.count) {
            guard kept.utf8.count + character.utf8.count + suffix.utf8.count <= maxBytes else { break }
            kept.append(character)
        }
        return kept + suffix
    }
}
