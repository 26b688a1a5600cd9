import Basics
import Foundation

/// Removes files below a folder of the engine's data without following a link anywhere: each
/// folder is opened from the one above it (`O_NOFOLLOW`), and a link met on the way is removed
/// as the entry it is, never entered. The data folder may come from a cache or a commit: what it
/// holds decides nothing outside it.
enum DataFolderSweep {
    /// What a sweep removed (or would): regular files, and the bytes they held alone (a file
    /// linked from elsewhere, such as a source read in place, frees nothing).
    struct Tally: Equatable, Sendable {
        var files = 0
        var bytes: Int64 = 0

        static func += (total: inout Tally, more: Tally) {
            total.files += more.files
            total.bytes += more.bytes
        }
    }

    /// Removes everything in the folder at `components` below `root` but the entries `keeping`
    /// names (paths relative to that folder) and the folders on the way to them; with `dryRun`,
    /// only counts. A folder that is missing, or is a link, is left as it is.
    static func sweep(_ components: [String], below root: String, keeping: Set<String> = [], dryRun: Bool) -> Tally {
        guard let folder = open(components, below: root) else { return Tally() }
        defer { close(folder) }
        var ancestors: Set<String> = []
        for path in keeping {
            var parts = path.split(separator: "/").map(String.init)
            while parts.count > 1 {
                parts.removeLast()
                ancestors.insert(parts.joined(separator: "/"))
            }
        }
        return sweep(folder, prefix: "", keeping: keeping, ancestors: ancestors, dryRun: dryRun)
    }

    /// Removes the entry `name` of the folder at `components` below `root`: a folder once emptied
    /// (what it held is counted by the sweeps before), anything else as the entry it is (a link
    /// is unlinked). Nothing with `dryRun` but the count of a regular file.
    static func removeEntry(_ name: String, in components: [String], below root: String, dryRun: Bool) -> Tally {
        guard let folder = open(components, below: root) else { return Tally() }
        defer { close(folder) }
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return Tally() }
        if info.st_mode & S_IFMT == S_IFDIR { return dryRun ? Tally() : remove(name, in: folder, dryRun: false) }
        return remove(name, in: folder, dryRun: dryRun)
    }

    /// The folder at `components` below `root`, opened without following a link below `root`.
    private static func open(_ components: [String], below root: String) -> Int32? {
        var current = Foundation.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { return nil }
        for component in components {
            let next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(current)
            guard next >= 0 else { return nil }
            current = next
        }
        return current
    }

    private static func sweep(_ folder: Int32, prefix: String, keeping: Set<String>, ancestors: Set<String>, dryRun: Bool) -> Tally {
        var tally = Tally()
        for name in names(folder) {
            let path = prefix.isEmpty ? name : prefix + "/" + name
            if keeping.contains(path) { continue }
            if ancestors.contains(path) {
                let inner = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if inner >= 0 {
                    tally += sweep(inner, prefix: path, keeping: keeping, ancestors: ancestors, dryRun: dryRun)
                    close(inner)
                    continue
                }
                // Not a real folder: nothing kept can be below it.
            }
            tally += remove(name, in: folder, dryRun: dryRun)
        }
        return tally
    }

    /// Removes the entry `name` of `folder`, and all below it when it is a real folder.
    private static func remove(_ name: String, in folder: Int32, dryRun: Bool) -> Tally {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return Tally() }
        var tally = Tally()
        guard info.st_mode & S_IFMT == S_IFDIR else {
            if info.st_mode & S_IFMT == S_IFREG {
                tally.files = 1
                tally.bytes = info.st_nlink == 1 ? Int64(info.st_size) : 0
            }
            if !dryRun { unlinkat(folder, name, 0) }
            return tally
        }
        let inner = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard inner >= 0 else { return tally }
        for entry in names(inner) { tally += remove(entry, in: inner, dryRun: dryRun) }
        close(inner)
        if !dryRun { unlinkat(folder, name, AT_REMOVEDIR) }
        return tally
    }

    /// The names in the open `folder` (none when it cannot be read).
    private static func names(_ folder: Int32) -> [String] {
        FileSystem.namesOrNone(in: "/proc/self/fd/\(folder)")
    }
}
