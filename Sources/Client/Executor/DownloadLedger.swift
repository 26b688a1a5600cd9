import Basics
import Foundation

/// The files runs wrote into download folders, remembered in the manifest's state, so that a
/// result no run names any more (its source was removed) is removed too: only files pipeline
/// wrote, never anything else in those folders, and never through a link.
struct DownloadLedger {
    /// `downloads.json` in the manifest's state: download folder -> files (`step/name`) last written.
    let file: String
    /// The manifest's folder (links above it are the user's).
    let trusted: String

    /// Removes what earlier runs wrote into each folder of `current` that it no longer holds,
    /// then remembers `current`. A file that cannot be removed is left, and said nothing of.
    func prune(keeping current: [String: Set<String>]) {
        let earlier = FileManager.default.contents(atPath: file).flatMap { try? StateCoding.decode([String: [String]].self, from: $0) } ?? [:]
        for (folder, files) in earlier {
            let kept = current[folder] ?? []
            let stale = Set(files).subtracting(kept)
            guard !stale.isEmpty, let root = try? LinkFreeFolder.open(folder, below: trusted) else { continue }
            for path in stale { remove(path, in: root) }
        }
        var remembered = earlier
        for (folder, files) in current { remembered[folder] = files.sorted() }
        if let data = try? StateCoding.encoder.encode(remembered) {
            try? FileManager.default.createDirectory(atPath: FolderPath.of(file), withIntermediateDirectories: true)
            try? AtomicFile.write(data, to: file, durable: false)
        }
    }

    /// Removes `step/name` below `root` without following a link, and the step's folder once empty.
    private func remove(_ path: String, in root: LinkFreeFolder) {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 2, !parts.contains(".."), !parts.contains(".") else { return }
        let step = openat(root.descriptor, parts[0], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard step >= 0 else { return }
        var info = stat()
        if fstatat(step, parts[1], &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG { unlinkat(step, parts[1], 0) }
        close(step)
        unlinkat(root.descriptor, parts[0], AT_REMOVEDIR)
    }
}
