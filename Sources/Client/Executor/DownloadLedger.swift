import Basics
import Foundation

/// The files runs wrote into download folders, remembered in the manifest's state, so that a
/// result no run names any more (its source was removed, or its folder is no job's download
/// folder now) is removed too: only files pipeline wrote, never anything else in those folders,
/// and never through a link.
///
/// The state file is input, never truth (it may come from a cache another branch wrote, or from
/// a pull request): it only says which files pipeline wrote are stale. A folder is taken from it
/// only as a path relative to the manifest's folder, outside `.git/` and `.pipeline/`, opened
/// without following a link, so no key it holds, absolute or climbing, can aim a removal
/// elsewhere; and a file goes only when it is exactly one a download wrote (`DownloadDigests`
/// knows its inode and change time), so a name it holds cannot aim one at the user's own files either.
struct DownloadLedger {
    /// `downloads.json` in the manifest's state: download folder (relative to the manifest's
    /// folder when inside it) -> files (`step/…/name`) last written.
    let file: String
    /// The manifest's folder (links above it are the user's).
    let trusted: String
    /// The files downloads wrote, as they were then.
    let written: DownloadDigests
    /// Whether folders no job downloads into now keep what runs wrote there (a run whose results
    /// go elsewhere: the manifest's own results may still name them).
    var keepsAbandoned = false

    /// Removes what earlier runs wrote into each folder of `current` that it no longer holds,
    /// then remembers `current`. A file that cannot be removed is left, and said nothing of. Files
    /// are known byte for byte: a name that differs from a current one only by Unicode normalization is another file.
    func prune(keeping current: [String: Set<ExactName>]) {
        let earlier = StateCoding.cached([String: [String]].self, at: file) ?? [:]
        var remembered: [String: [String]] = [:]
        for (folder, files) in current {
            let key = key(folder)
            // State from before keys were relative named the folder by its absolute path.
            let stale = Set((earlier[key] ?? earlier[RealPath.normalized(folder)] ?? []).map(ExactName.init(_:))).subtracting(files)
            if !stale.isEmpty, let root = try? LinkFreeFolder.open(folder, below: trusted) {  // a link or no folder: nothing to prune
                for path in stale { remove(path.text, in: root, folder: folder) }
            }
            remembered[key] = files.sorted().map(\.text)
        }
        // Folders no job downloads into any more (`download:` moved or dropped): what runs wrote there goes.
        remembered.merge(pruneAbandoned(earlier, current: current).kept) { current, _ in current }
        // Unwritten, the next run prunes nothing it did not see (a stale file stays).
        StateCoding.saveCache(remembered, to: file, below: trusted)
    }

    /// How `folder` is named in the state: relative to the manifest's folder when inside it, so
    /// that the state stays true when the project is copied or restored at another path.
    private func key(_ folder: String) -> String {
        RealPath.relative(folder, inside: trusted) ?? RealPath.normalized(folder)
    }

    /// Removes `step/…/name` below `root` (`folder`) without following a link, when a download wrote
    /// it as it is, and the folders it leaves empty on the way up (never `root` itself); the bytes
    /// it held when it went (with `dryRun`, would go).
    @discardableResult
    func remove(_ path: String, in root: LinkFreeFolder, folder: String, dryRun: Bool = false) -> Int64? {
        guard ProjectPath.isRelative(path) else { return nil }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 2, !parts.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        var folders: [Int32] = [root.descriptor]
        defer { for opened in folders.dropFirst() { close(opened) } }
        for part in parts.dropLast() {
            let next = openat(folders[folders.count - 1], part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return nil }
            folders.append(next)
        }
        var info = stat()
        let parent = folders[folders.count - 1]
        guard fstatat(parent, parts[parts.count - 1], &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
              written.wrote(folder + "/" + path, info: info) else { return nil }
        guard !dryRun else { return Int64(info.st_size) }
        guard unlinkat(parent, parts[parts.count - 1], 0) == 0 else { return nil }
        // Each folder on the way, deepest first, goes only when empty.
        for depth in stride(from: parts.count - 2, through: 0, by: -1) {
            guard unlinkat(folders[depth], parts[depth], AT_REMOVEDIR) == 0 else { break }
        }
        return Int64(info.st_size)
    }
}
