import Basics
import Foundation

/// Files of `.pipeline/` state, which a checkout may have planted links in.
enum StateFile {
    /// Whether a state file may be read and written at `path`: inside real folders (created if
    /// missing) from `.pipeline` down, and over nothing but a regular file. Anything else leaves
    /// the state unread and unwritten.
    static func mayWrite(_ path: String) -> Bool {
        let components = FolderPath.of(path).split(separator: "/", omittingEmptySubsequences: false)
        let start = components.lastIndex(of: ".pipeline") ?? components.count - 1
        var info = stat()
        for end in start..<components.count {
            let folder = components[...end].joined(separator: "/")
            if lstat(folder, &info) != 0 {
                guard mkdir(folder, 0o755) == 0, lstat(folder, &info) == 0 else { return false }
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { return false }
        }
        return lstat(path, &info) != 0 ? errno == ENOENT : info.st_mode & S_IFMT == S_IFREG
    }
}
