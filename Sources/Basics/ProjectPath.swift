/// Paths read from state files, which are input and never truth: a path a state file may name is
/// relative, normalized (no empty, `.` or `..` component) and so stays inside the folder it is
/// resolved against.
public enum ProjectPath {
    /// Whether `path` is a relative path without empty, `.` or `..` components, or a NUL.
    public static func isRelative(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.unicodeScalars.contains("\0") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
