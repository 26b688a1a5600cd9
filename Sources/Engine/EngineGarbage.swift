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
    /// go too, unless kept. With `dryRun`, only counts.
    public func collectGarbage(keeping: Set<String>, dryRun: Bool = false) -> CollectedGarbage {
        let store = uploadLinks.assemblies
        let going = Set(store.all.filter { !$0.isTerminal }.map(\.id))
        var found = Set(store.all.map(\.id))
        let assemblies = dataDirectory + "/assemblies", results = dataDirectory + "/results"
        for name in (try? FileSystem.names(in: assemblies)) ?? [] {  // an unreadable folder holds nothing to collect
            let id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            if AssemblyStore.isValidID(id) { found.insert(id) }
        }
        for name in (try? FileSystem.names(in: results)) ?? [] where AssemblyStore.isValidID(name) { found.insert(name) }
        let removed = found.subtracting(keeping).subtracting(going)
        var collected = CollectedGarbage(assemblies: removed.count, kept: found.count - removed.count)
        for id in removed {
            let paths = [assemblies + "/" + id + ".json", assemblies + "/" + id, results + "/" + id]
            collected.bytes += paths.reduce(0) { $0 + Self.ownBytes($1) }
        }
        guard !dryRun, !removed.isEmpty else { return collected }
        store.remove(removed)
        for id in removed {
            try? FileSystem.removeIfPresent(assemblies + "/" + id)  // left when it cannot go; counted all the same
            try? FileSystem.removeIfPresent(results + "/" + id)
        }
        for upload in uploadLinks.uploads.known {
            if let id = AssemblyUploads.assemblyID(upload.metadata), removed.contains(id) { uploadLinks.uploads.delete(upload.id) }
        }
        return collected
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
