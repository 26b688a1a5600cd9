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
        guard !keys.isEmpty, let names = try? FileSystem.names(in: stateDirectory + "/manifests") else { return [] }  // no other manifest ran here
        var shared: [(folder: String, manifest: String)] = []
        for name in names.sorted() where name != own {
            let ledger = stateDirectory + "/manifests/" + name + "/downloads.json"
            guard let written = StateCoding.cached([String: [String]].self, at: ledger) else { continue }
            for key in written.keys.sorted() where keys.contains(key) && written[key]?.isEmpty == false { shared.append((key, name)) }
        }
        return shared
    }
}
