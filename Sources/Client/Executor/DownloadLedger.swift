import Basics
import Foundation

/// The files runs wrote into download folders, remembered in the manifest's state, so that a
/// result no run names any more (its source was removed) is removed too: only files pipeline
/// wrote, never anything else in those folders, and never through a link.
///
/// The state file is input, never truth (it may come from a cache another branch wrote, or from
/// a pull request): it only says which files of a folder this run downloads into are stale. A
/// folder is never taken from it, so no key it holds, absolute or climbing, can aim a removal.
struct DownloadLedger {
    /// `downloads.json` in the manifest's state: download folder (relative to the manifest's
    /// folder when inside it) -> files (`step/name`) last written.
    let file: String
    /// The manifest's folder (links above it are the user's).
    let trusted: String

    /// Removes what earlier runs wrote into each folder of `current` that it no longer holds,
    /// then remembers `current`. A file that cannot be removed is left, and said nothing of.
    func prune(keeping current: [String: Set<String>]) {
        let earlier = FileManager.default.contents(atPath: file).flatMap { try? StateCoding.decode([String: [String]].self, from: $0) } ?? [:]
        var remembered: [String: [String]] = [:]
        for (folder, files) in current {
            let key = key(folder)
            // State from before keys were relative named the folder by its absolute path.
            let stale = Set(earlier[key] ?? earlier[RealPath.normalized(folder)] ?? []).subtracting(files)
            if !stale.isEmpty, let root = try? LinkFreeFolder.open(folder, below: trusted) {
                for path in stale { remove(path, in: root) }
            }
            remembered[key] = files.sorted()
        }
        // Other folders' lists are kept for a later run that downloads there again; only project-relative ones.
        for (key, files) in earlier where remembered[key] == nil && ProjectPath.isRelative(key) { remembered[key] = files }
        if let data = try? StateCoding.encoder.encode(remembered) {
            try? FileManager.default.createDirectory(atPath: FolderPath.of(file), withIntermediateDirectories: true)
            try? AtomicFile.write(data, to: file, below: trusted, durable: false)
        }
    }

    /// How `folder` is named in the state: relative to the manifest's folder when inside it, so
    /// that the state stays true when the project is copied or restored at another path.
    private func key(_ folder: String) -> String {
        let absolute = RealPath.normalized(folder)
        return RealPath.isInside(absolute, RealPath.normalized(trusted)) ? RealPath.relative(absolute, from: trusted) : absolute
    }

    /// Removes `step/name` below `root` without following a link, and the step's folder once empty.
    private func remove(_ path: String, in root: LinkFreeFolder) {
        guard ProjectPath.isRelative(path) else { return }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 2 else { return }
        let step = openat(root.descriptor, parts[0], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard step >= 0 else { return }
        var info = stat()
        if fstatat(step, parts[1], &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG { unlinkat(step, parts[1], 0) }
        close(step)
        unlinkat(root.descriptor, parts[0], AT_REMOVEDIR)
    }
}
