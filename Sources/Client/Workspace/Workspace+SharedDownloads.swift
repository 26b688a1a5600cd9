import Basics
import Foundation

extension Workspace {
    /// The other manifests of this folder that last downloaded into one of `folders`, by folder:
    /// their results and this one's of the same step and name would replace each other there.
    /// Read from each manifest's ledger (`downloads.json`), whose keys name folders relative to
    /// the manifests' common folder.
    public func manifestsSharing(downloadFolders folders: [String]) -> [(folder: String, manifest: String)] {
        let own = (manifestStateDirectory as NSString).lastPathComponent
        let keys = Set(folders.compactMap { RealPath.relative($0, inside: directory) })
        guard !keys.isEmpty else { return [] }
        let names = FileSystem.namesOrNone(in: stateDirectory + "/manifests")
        var shared: [(folder: String, manifest: String)] = []
        for name in names.sorted() where name != own {
            let ledger = stateDirectory + "/manifests/" + name + "/downloads.json"
            guard let written = StateCoding.cached([String: [String]].self, at: ledger) else { continue }
            for key in written.keys.sorted() where keys.contains(key) && written[key]?.isEmpty == false { shared.append((key, name)) }
        }
        return shared
    }
}

extension Workspace {
    /// Removes (with `dryRun`, counts) what runs of this manifest wrote into folders none of its
    /// jobs downloads into now (`folders` are those they do), as a run that completed does; what
    /// the last run wrote into `folders` stays. What went.
    public func pruneAbandonedDownloads(keeping folders: [String], dryRun: Bool) -> PrunedDownloads {
        guard let earlier = StateCoding.cached([String: [String]].self, at: downloadsFile) else { return PrunedDownloads() }  // nothing written yet
        let ledger = DownloadLedger(file: downloadsFile, trusted: directory, written: DownloadDigests(file: downloadDigestsFile, trusted: directory))
        let keys = Set(folders.map(ledger.folderKey))
        let current = Dictionary(folders.map { ($0, Set((earlier[ledger.folderKey($0)] ?? []).map(ExactName.init(_:)))) }, uniquingKeysWith: { first, _ in first })
        let pruned = ledger.pruneAbandoned(earlier, current: current, dryRun: dryRun).pruned
        let remembered = earlier.filter { keys.contains($0.key) }
        if !dryRun, remembered.count != earlier.count { StateCoding.saveCache(remembered, to: downloadsFile, below: directory) }
        return pruned
    }
}
