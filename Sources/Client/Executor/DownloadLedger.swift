import Basics
import Foundation

/// The files runs wrote into download folders, remembered in the manifest's state, so that a
/// result no run names any more (its source was removed) is removed too: only files pipeline
/// wrote, never anything else in those folders, and never through a link.
///
/// The state file is input, never truth (it may come from a cache another branch wrote, or from
/// a pull request): it only says which files of a folder this run downloads into are stale. A
/// folder is never taken from it, so no key it holds, absolute or climbing, can aim a removal;
/// and a file goes only when it is exactly one a download wrote (`DownloadDigests` knows its
/// inode and change time), so a name it holds cannot aim one at the user's own files either.
struct DownloadLedger {
    /// `downloads.json` in the manifest's state: download folder (relative to the manifest's
    /// folder when inside it) -> files (`step/…/name`) last written.
    let file: String
    /// The manifest's folder (links above it are the user's).
    let trusted: String
    /// The files downloads wrote, as they were then.
    let written: DownloadDigests

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
        // Other folders' lists are kept for a later run that downloads there again; only project-relative ones.
        for (key, files) in earlier where remembered[key] == nil && ProjectPath.isRelative(key) { remembered[key] = files }
        // Unwritten, the next run prunes nothing it did not see (a stale file stays).
        StateCoding.saveCache(remembered, to: file, below: trusted)
    }

    /// How `folder` is named in the state: relative to the manifest's folder when inside it, so
    /// that the state stays true when the project is copied or restored at another path.
    private func key(_ folder: String) -> String {
        RealPath.relative(folder, inside: trusted) ?? RealPath.normalized(folder)
    }

    /// Removes `step/…/name` below `root` (`folder`) without following a link, when a download wrote
    /// it as it is, and the folders it leaves empty on the way up (never `root` itself).
    private func remove(_ path: String, in root: LinkFreeFolder, folder: String) {
        guard ProjectPath.isRelative(path) else { return }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 2, !parts.contains(where: { $0 == "." || $0 == ".." }) else { return }
        var folders: [Int32] = [root.descriptor]
        defer { for opened in folders.dropFirst() { close(opened) } }
        for part in parts.dropLast() {
            let next = openat(folders[folders.count - 1], part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return }
            folders.append(next)
        }
        var info = stat()
        let parent = folders[folders.count - 1]
        guard fstatat(parent, parts[parts.count - 1], &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
              written.wrote(folder + "/" + path, info: info) else { return }
        unlinkat(parent, parts[parts.count - 1], 0)
        // Each folder on the way, deepest first, goes only when empty.
        for depth in stride(from: parts.count - 2, through: 0, by: -1) {
            guard unlinkat(folders[depth], parts[depth], AT_REMOVEDIR) == 0 else { break }
        }
    }
}
