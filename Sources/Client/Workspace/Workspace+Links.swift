import Basics
import Foundation

extension Workspace {
    /// Throws when `.pipeline/`, or anything in it or in its folders, is a symbolic link: the tree
    /// is the runner's own, and a link planted there (`.pipeline/engine -> /elsewhere`, a lock
    /// file pointing at a file to create) would make it read or write outside the project.
    public func refuseLinks() throws(FileError) {
        var info = stat()
        guard lstat(stateDirectory, &info) == 0 else { return }
        try Self.refuse(stateDirectory, info)
        for entry in try Self.entries(of: stateDirectory) {
            let path = stateDirectory + "/" + entry
            guard lstat(path, &info) == 0 else { continue }
            try Self.refuse(path, info)
            guard info.st_mode & S_IFMT == S_IFDIR else { continue }
            for inner in try Self.entries(of: path) where lstat(path + "/" + inner, &info) == 0 {
                try Self.refuse(path + "/" + inner, info)
            }
        }
        // The manifest's own folder, one level deeper (`manifests/<name>/`).
        for entry in try Self.entries(of: manifestStateDirectory) where lstat(manifestStateDirectory + "/" + entry, &info) == 0 {
            try Self.refuse(manifestStateDirectory + "/" + entry, info)
        }
    }

    private static func refuse(_ path: String, _ info: stat) throws(FileError) {
        guard info.st_mode & S_IFMT == S_IFLNK else { return }
        throw FileError(path: path, operation: "use", code: ELOOP,
                        reason: "it is a symbolic link, and pipeline's state folder holds none; remove it (or the whole .pipeline folder, which holds only caches and resume state)")
    }

    private static func entries(of folder: String) throws(FileError) -> [String] {
        try FileSystem.names(in: folder)
    }
}
