import Basics
import Foundation

/// What a collection removed (or would remove) from the data folder.
public struct CollectedGarbage: Sendable, Equatable {
    /// The Assemblies whose records and files went.
    public var assemblies: Int = 0
    /// The bytes their files held alone (a file linked from elsewhere, such as a source read in place, frees nothing).
    public var bytes: Int64 = 0
    /// The Assemblies kept.
    public var kept: Int = 0
}

extension LocalEngine {
    /// Removes every ended Assembly not in `keeping` (the ones current results name): its record,
    /// its files and results, and the tus uploads made for it; Assemblies still going are always
    /// kept. Folders of Assemblies the engine did not load (damaged records, another engine's)
    /// go too, unless kept.
    public func collectGarbage(keeping: Set<String>) -> CollectedGarbage {
        let store = uploadLinks.assemblies
        let going = Set(store.all.filter { !$0.isTerminal }.map(\.id))
        let (removed, collected) = Self.garbage(in: dataDirectory, known: store.all.map(\.id), keeping: keeping.union(going))
        guard !removed.isEmpty else { return collected }
        store.remove(removed)
        for id in removed {
            // Left when it cannot go; counted all the same. A link is removed, never followed.
            try? FileSystem.removeIfPresent(dataDirectory + "/assemblies/" + id)
            try? FileSystem.removeIfPresent(dataDirectory + "/results/" + id)
        }
        for upload in uploadLinks.uploads.known {
            if let id = AssemblyUploads.assemblyID(upload.metadata), removed.contains(id) { uploadLinks.uploads.delete(upload.id) }
        }
        return collected
    }

    /// What `collectGarbage` would remove from the data folder `dataDirectory`, read without
    /// starting an engine on it (which would end the Assemblies a killed process left going):
    /// those are counted as ending now, as the next start ends them.
    public static func garbage(in dataDirectory: String, keeping: Set<String>) throws -> CollectedGarbage {
        let folder = dataDirectory + "/assemblies"
        let records = FileManager.default.fileExists(atPath: folder) ? try AssemblyStore(directory: folder).all : []
        let going = records.filter { !$0.isTerminal && !$0.readsFilesInPlace }.map(\.id)
        return garbage(in: dataDirectory, known: records.map(\.id), keeping: keeping.union(going)).collected
    }

    /// The Assemblies of the data folder (`known` ones and any folder or record named by an id)
    /// not in `keeping`, and what removing them frees.
    private static func garbage(in dataDirectory: String, known: [String], keeping: Set<String>) -> (removed: Set<String>, collected: CollectedGarbage) {
        var found = Set(known)
        let assemblies = dataDirectory + "/assemblies", results = dataDirectory + "/results"
        for name in (try? FileSystem.names(in: assemblies)) ?? [] {  // an unreadable folder holds nothing to collect
            let id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            if AssemblyStore.isValidID(id) { found.insert(id) }
        }
        for name in (try? FileSystem.names(in: results)) ?? [] where AssemblyStore.isValidID(name) { found.insert(name) }
        let removed = found.subtracting(keeping)
        var collected = CollectedGarbage(assemblies: removed.count, kept: found.count - removed.count)
        for id in removed {
            let paths = [assemblies + "/" + id + ".json", assemblies + "/" + id, results + "/" + id]
            collected.bytes += paths.reduce(0) { $0 + ownBytes($1) }
        }
        return (removed, collected)
    }

    /// The bytes of the files at or below `path` that no other name links to; links are not followed.
    static func ownBytes(_ path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return info.st_nlink == 1 ? Int64(info.st_size) : 0
        case S_IFDIR: return ((try? FileSystem.names(in: path)) ?? []).reduce(0) { $0 + ownBytes(path + "/" + $1) }
        default: return 0
        }
    }
}
