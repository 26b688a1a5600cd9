import Basics
import Foundation

extension Workspace {
    /// How deep below `.pipeline/` links are looked for: down to an engine Assembly's step folders
    /// (`engine/results/<id>/<step>`) and its uploads (`engine/uploads/<id>.bin`). Files deeper
    /// are only ever read through a real path checked to be inside the engine's folder.
    static let linkCheckDepth = 4

    /// Throws when `.pipeline/`, or anything in it down to `linkCheckDepth`, is a symbolic link:
    /// the tree is the runner's own, and a link planted there (`.pipeline/engine -> /elsewhere`,
    /// an upload's data pointing at a file to truncate) would make it read or write outside the project.
    public func refuseLinks() throws(FileError) {
        var info = stat()
        guard lstat(stateDirectory, &info) == 0 else { return }
        try Self.refuse(stateDirectory, info)
        try Self.refuseLinks(below: stateDirectory, depth: Self.linkCheckDepth)
    }

    private static func refuseLinks(below folder: String, depth: Int) throws(FileError) {
        guard depth > 0 else { return }
        var info = stat()
        for entry in try FileSystem.names(in: folder) {
            let path = folder + "/" + entry
            guard lstat(path, &info) == 0 else { continue }
            try refuse(path, info)
            if info.st_mode & S_IFMT == S_IFDIR { try refuseLinks(below: path, depth: depth - 1) }
        }
    }

    private static func refuse(_ path: String, _ info: stat) throws(FileError) {
        guard info.st_mode & S_IFMT == S_IFLNK else { return }
        throw FileError(path: path, operation: "use", code: ELOOP,
                        reason: "it is a symbolic link, and pipeline's state folder holds none; remove it (or the whole .pipeline folder, which holds only caches and resume state)")
    }
}
