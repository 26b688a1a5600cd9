import Basics
import Foundation

/// What pruning downloads removed (or would): files, and the bytes they held.
public struct PrunedDownloads: Sendable, Equatable {
    /// The files.
    public var files = 0
    /// Their bytes.
    public var bytes: Int64 = 0
}

extension DownloadLedger {
    /// Removes (with `dryRun`, counts) what runs wrote into the folders `earlier` (the ledger as
    /// read) names that are not in `current` (every download folder of this run, with the files
    /// it holds now): folders no job downloads into any more, as when `download:` moved. A file
    /// of `current`, or one another manifest's ledger lists (its downloads found it in place),
    /// stays whatever this ledger says. What to remember of those folders: all of it when
    /// `keepsAbandoned`, else nothing.
    func pruneAbandoned(_ earlier: [String: [String]], current: [String: Set<ExactName>], dryRun: Bool = false) -> (kept: [String: [String]], pruned: PrunedDownloads) {
        let currentKeys = Set(current.keys.map(folderKey))
        let abandoned = earlier.filter { !currentKeys.contains($0.key) && Self.mayHoldDownloads($0.key) }
        var pruned = PrunedDownloads()
        guard !keepsAbandoned else { return (abandoned, pruned) }
        guard !abandoned.isEmpty else { return ([:], pruned) }
        var kept = otherManifestsFiles()
        for (folder, files) in current {
            let key = folderKey(folder)
            for name in files { kept.insert(ExactName(key + "/" + name.text)) }
        }
        for (key, files) in abandoned.sorted(by: { ByteOrder.precedes($0.key, $1.key) }) {
            guard let root = LinkFreeFolder.existing(key, below: trusted) else { continue }  // gone, or a link on the way: nothing to remove
            var removed = false
            for path in files where !kept.contains(ExactName(key + "/" + path)) {
                guard let bytes = remove(path, in: root, folder: trusted + "/" + key, dryRun: dryRun) else { continue }
                pruned.files += 1
                pruned.bytes += bytes
                removed = true
            }
            if removed && !dryRun { removeEmptyFolders(key) }
        }
        return ([:], pruned)
    }

    /// Whether a ledger's key may name a download folder: relative to the manifest's folder,
    /// without climbing, and outside `.git/` and `.pipeline/` (where no download goes).
    static func mayHoldDownloads(_ key: String) -> Bool {
        ProjectPath.isRelative(key) && !key.split(separator: "/").contains { $0 == ".git" || $0 == ".pipeline" }
    }

    /// How `folder` is named in a ledger: relative to the manifest's folder when inside it.
    func folderKey(_ folder: String) -> String {
        RealPath.relative(folder, inside: trusted) ?? RealPath.normalized(folder)
    }

    /// The files (relative to the manifest's folder) the other manifests of the folder last downloaded.
    private func otherManifestsFiles() -> Set<ExactName> {
        let own = FolderPath.of(file), manifests = FolderPath.of(own)
        guard (manifests as NSString).lastPathComponent == "manifests" else { return [] }
        let names = FileSystem.namesOrNone(in: manifests)
        var files: Set<ExactName> = []
        for name in names where manifests + "/" + name != own {
            guard let ledger = StateCoding.cached([String: [String]].self, at: manifests + "/" + name + "/downloads.json") else { continue }
            for (key, listed) in ledger where ProjectPath.isRelative(key) {
                for path in listed { files.insert(ExactName(key + "/" + path)) }
            }
        }
        return files
    }

    /// Removes the folder `key` and the ones above it (below the manifest's folder) while they are empty.
    private func removeEmptyFolders(_ key: String) {
        var parts = key.split(separator: "/").map(String.init)
        while let last = parts.popLast() {
            guard let parent = LinkFreeFolder.existing(parts.joined(separator: "/"), below: trusted),
                  unlinkat(parent.descriptor, last, AT_REMOVEDIR) == 0 else { return }
        }
    }
}
