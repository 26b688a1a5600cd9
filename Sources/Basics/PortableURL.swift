import Foundation

/// `file://` URLs as state and results keep them: a file inside the project is named relative to
/// the folder of the file that names it (a relative URL reference), so that a project copied, or
/// restored from a cache on a runner with another workspace path, names its own files.
public enum PortableURL {
    /// `url` as kept in a file of `folder`: relative to `folder` when it is a `file://` URL of a
    /// path inside `project`; anything else as it is.
    public static func kept(_ url: String, in folder: String, project: String) -> String {
        guard url.lowercased().hasPrefix("file://"), let path = URL(string: url)?.path, !path.isEmpty,
              RealPath.relative(path, inside: project) != nil else { return url }
        let relative = RealPath.relative(RealPath.normalized(path), from: RealPath.normalized(folder))
        let encoded = relative.addingPercentEncoding(withAllowedCharacters: allowed) ?? relative
        return encoded.hasPrefix("/") ? url : encoded
    }

    /// The `file://` URL a reference kept in a file of `folder` stands for: a relative reference
    /// resolved against `folder`; an absolute URL as it is.
    public static func resolved(_ url: String, in folder: String) -> String {
        guard !url.isEmpty, !hasScheme(url), !url.hasPrefix("/"),
              let resolved = URL(string: url, relativeTo: URL(fileURLWithPath: RealPath.normalized(folder), isDirectory: true)) else { return url }
        return resolved.absoluteURL.absoluteString
    }

    /// Whether `url` starts with a scheme (`name:`, as RFC 3986 spells one).
    static func hasScheme(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isASCII, first.isLetter else { return false }
        return url[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// What a path segment keeps unescaped: unreserved characters and `/` (never `%`, `#`, `?` or `:`).
    private static let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
}
