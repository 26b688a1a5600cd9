import Basics
import Foundation

extension Workspace {
    /// The files an older version kept in `.pipeline/` for every manifest of the folder at once.
    static let folderStateFiles = ["digests", "templates.json"]

    /// Copies the state an older version kept for a `.yaml` manifest under its name without the
    /// extension (`manifests/a/`, which an `a.yml` beside it shared) into its own folder
    /// (`manifests/a.yaml/`), once, when that folder does not exist yet. Copied, not moved: an
    /// `a.yml` keeps what it had; entries of the other's plans are dropped when a run folds the state.
    func adoptYAMLState() {
        guard ownStateIsMissing, let manifestName, (manifestName as NSString).pathExtension.lowercased() == "yaml" else { return }
        let older = stateDirectory + "/manifests/" + (manifestName as NSString).deletingPathExtension
        adopt(Self.adoptable(in: older).filter { !$0.hasSuffix(".lock") }, from: older)
    }

    /// Copies the state an older version kept for the whole folder into this manifest's own
    /// folder, once, when that folder does not exist yet: its run state (so Assemblies already
    /// made are found again, never made twice), digests and synced Templates. Copied, not moved:
    /// another manifest of the folder adopts the same. Entries of other manifests' plans match
    /// no plan of this one and are dropped when a run folds the state.
    func adoptFolderState() {
        guard ownStateIsMissing else { return }
        adopt(Self.adoptable(in: stateDirectory).filter { name in
            Self.folderStateFiles.contains(name) || (name.hasPrefix("run-state") && (name.hasSuffix(".json") || name.hasSuffix(".json.journal")))
        }, from: stateDirectory)
    }

    /// The names in `folder`; none when it cannot be listed (nothing is adopted this time).
    private static func adoptable(in folder: String) -> [String] {
        FileSystem.namesOrNone(in: folder)
    }

    /// Whether the manifest has no state folder of its own yet, so older state may be adopted.
    private var ownStateIsMissing: Bool { manifestName != nil && !FileManager.default.fileExists(atPath: manifestStateDirectory) }

    /// Copies the regular files `names` of `folder` into the manifest's own state folder, which
    /// does not exist yet: all of them or none (they are copied beside it, then renamed into
    /// place), so a copy that fails (a full disk) is tried again by the next command, never
    /// taken for a folder adopted whole.
    private func adopt(_ names: [String], from folder: String) {
        guard !names.isEmpty else { return }
        let staging = manifestStateDirectory + ".adopting"
        do {
            try FileSystem.removeIfPresent(staging)
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
            for name in names {
                var info = stat()
                // Only regular files: the state folder holds no links (see `refuseLinks`).
                guard lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: staging + "/" + name)
            }
            guard rename(staging, manifestStateDirectory) == 0 else { throw FileError(path: manifestStateDirectory, operation: "rename", code: errno) }
        } catch {
            FileSystem.cleanUp(staging)  // the next command starts the copy again
        }
    }
}
