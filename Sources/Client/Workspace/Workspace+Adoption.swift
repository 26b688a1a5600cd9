import Foundation

extension Workspace {
    /// The files an older version kept in `.pipeline/` for every manifest of the folder at once.
    static let folderStateFiles = ["digests", "templates.json"]

    /// Copies the state an older version kept for the whole folder into this manifest's own
    /// folder, once, when that folder does not exist yet: its run state (so Assemblies already
    /// made are found again, never made twice), digests and synced Templates. Copied, not moved:
    /// another manifest of the folder adopts the same. Entries of other manifests' plans match
    /// no plan of this one and are dropped when a run folds the state.
    /// Copies the state an older version kept for a `.yaml` manifest under its name without the
    /// extension (`manifests/a/`, which an `a.yml` beside it shared) into its own folder
    /// (`manifests/a.yaml/`), once, when that folder does not exist yet. Copied, not moved: an
    /// `a.yml` keeps what it had; entries of the other's plans are dropped when a run folds the state.
    func adoptYAMLState() {
        guard let manifestName, (manifestName as NSString).pathExtension.lowercased() == "yaml",
              !FileManager.default.fileExists(atPath: manifestStateDirectory) else { return }
        let older = stateDirectory + "/manifests/" + (manifestName as NSString).deletingPathExtension
        let names = (try? FileManager.default.contentsOfDirectory(atPath: older)) ?? []
        guard !names.isEmpty, (try? FileManager.default.createDirectory(atPath: manifestStateDirectory, withIntermediateDirectories: true)) != nil else { return }
        for name in names where !name.hasSuffix(".lock") {
            var info = stat()
            // Only regular files: the state folder holds no links (see `refuseLinks`).
            guard lstat(older + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            try? FileManager.default.copyItem(atPath: older + "/" + name, toPath: manifestStateDirectory + "/" + name)
        }
    }

    func adoptFolderState() {
        guard manifestName != nil, !FileManager.default.fileExists(atPath: manifestStateDirectory) else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? []
        let adopted = names.filter { name in
            Self.folderStateFiles.contains(name) || (name.hasPrefix("run-state") && (name.hasSuffix(".json") || name.hasSuffix(".json.journal")))
        }
        guard !adopted.isEmpty, (try? FileManager.default.createDirectory(atPath: manifestStateDirectory, withIntermediateDirectories: true)) != nil else { return }
        for name in adopted {
            var info = stat()
            // Only regular files: the state folder holds no links (see `refuseLinks`).
            guard lstat(stateDirectory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            try? FileManager.default.copyItem(atPath: stateDirectory + "/" + name, toPath: manifestStateDirectory + "/" + name)
        }
    }
}
