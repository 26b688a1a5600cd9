import Basics
import Foundation

/// What a collection removed (or would remove) from the data folder.
public struct CollectedGarbage: Sendable, Equatable {
    /// The Assemblies whose records and files went.
    public var assemblies: Int = 0
    /// The upload files that went: of those Assemblies, and of sources no results name in Assemblies kept for others.
    public var uploads: Int = 0
    /// The result files that went, likewise.
    public var results: Int = 0
    /// The bytes their files held alone (a file linked from elsewhere, such as a source read in place, frees nothing).
    public var bytes: Int64 = 0
    /// The Assemblies kept.
    public var kept: Int = 0
    /// The Assemblies kept that lost files (of sources no results name any more).
    public var trimmed: Int = 0
}

extension LocalEngine {
    /// Removes every ended Assembly not in `keeping` nor `trimming` (the ones current results
    /// name): its record, its files and results, and the tus uploads made for it; of each ended
    /// one in `trimming` alone, every upload and result but the result folders it names (below
    /// `results/<id>/`) and the uploads they were made from (`AssemblyTrim`). Assemblies still
    /// going are always kept whole. Folders of Assemblies the engine did not load (damaged
    /// records, another engine's) go too, unless kept.
    public func collectGarbage(keeping: Set<String>, trimming named: [String: Set<String>] = [:]) -> CollectedGarbage {
        let store = uploadLinks.assemblies
        let whole = keeping.union(store.live.filter { !$0.isTerminal }.map(\.id))
        let (removed, found) = Self.unkept(in: dataDirectory, known: store.live.map(\.id), keeping: whole.union(named.keys))
        var collected = Self.discard(removed, in: dataDirectory, dryRun: false)
        store.remove(removed)
        collected.kept = found - removed.count
        for upload in uploadLinks.uploads.stored() {
            if let id = AssemblyUploads.assemblyID(upload.metadata), removed.contains(id) { uploadLinks.uploads.delete(upload.id) }
        }
        var trims: [(id: String, trim: AssemblyTrim)] = []
        for (id, folders) in named.sorted(by: { $0.key < $1.key }) where !whole.contains(id) && !removed.contains(id) {
            guard var record = store.get(id) else {
                trims.append((id, AssemblyTrim(recordless: folders)))
                continue
            }
            let trim = AssemblyTrim(&record, named: folders, dataDirectory: dataDirectory)
            if trim.changed { store.update(id) { $0 = record } }
            trims.append((id, trim))
        }
        // The records forget the files before the files go.
        store.flush()
        for (id, trim) in trims {
            Self.count(trim.sweep(id, in: dataDirectory, dryRun: false), trimmed: trim.changed, into: &collected)
            for upload in trim.tusUploads { uploadLinks.uploads.delete(upload) }
        }
        return collected
    }

    /// What `collectGarbage` would remove from the data folder `dataDirectory`, read without
    /// starting an engine on it (which would end the Assemblies a killed process left going):
    /// those are counted as ending now, as the next start ends them.
    public static func garbage(in dataDirectory: String, keeping: Set<String>, trimming named: [String: Set<String>] = [:]) throws -> CollectedGarbage {
        let folder = dataDirectory + "/assemblies"
        let records = AssemblyStore.readAll(in: folder)
        let whole = keeping.union(records.filter { !$0.isTerminal && !$0.readsFilesInPlace }.map(\.id))
        let (removed, found) = unkept(in: dataDirectory, known: records.map(\.id), keeping: whole.union(named.keys))
        var collected = discard(removed, in: dataDirectory, dryRun: true)
        collected.kept = found - removed.count
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, folders) in named where !whole.contains(id) && !removed.contains(id) {
            let trim: AssemblyTrim
            if var record = byID[id] { trim = AssemblyTrim(&record, named: folders, dataDirectory: dataDirectory) } else { trim = AssemblyTrim(recordless: folders) }
            count(trim.sweep(id, in: dataDirectory, dryRun: true), trimmed: trim.changed, into: &collected)
        }
        return collected
    }

    private static func count(_ swept: (uploads: DataFolderSweep.Tally, results: DataFolderSweep.Tally), trimmed: Bool, into collected: inout CollectedGarbage) {
        collected.uploads += swept.uploads.files
        collected.results += swept.results.files
        collected.bytes += swept.uploads.bytes + swept.results.bytes
        if trimmed || swept.uploads.files + swept.results.files > 0 { collected.trimmed += 1 }
    }

    /// The Assemblies of the data folder (`known` ones and any folder or record named by an id)
    /// not in `keeping`, and how many there are in all.
    private static func unkept(in dataDirectory: String, known: [String], keeping: Set<String>) -> (removed: Set<String>, found: Int) {
        var found = Set(known)
        for name in FileSystem.namesOrNone(in: dataDirectory + "/assemblies") {
            let id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            if AssemblyStore.isValidID(id) { found.insert(id) }
        }
        for name in FileSystem.namesOrNone(in: dataDirectory + "/results") where AssemblyStore.isValidID(name) { found.insert(name) }
        return (found.subtracting(keeping), found.count)
    }

    /// Removes (with `dryRun`, counts) the records and files of the Assemblies `ids`; a link is
    /// removed, never followed, and what cannot go is left, counted all the same.
    private static func discard(_ ids: Set<String>, in dataDirectory: String, dryRun: Bool) -> CollectedGarbage {
        var collected = CollectedGarbage(assemblies: ids.count)
        for id in ids.sorted() {
            let uploads = DataFolderSweep.sweep(["assemblies", id, "uploads"], below: dataDirectory, dryRun: dryRun)
            var other = DataFolderSweep.sweep(["assemblies", id], below: dataDirectory, keeping: ["uploads"], dryRun: dryRun)
            let results = DataFolderSweep.sweep(["results", id], below: dataDirectory, dryRun: dryRun)
            other += DataFolderSweep.removeEntry("uploads", in: ["assemblies", id], below: dataDirectory, dryRun: dryRun)
            other += DataFolderSweep.removeEntry(id, in: ["assemblies"], below: dataDirectory, dryRun: dryRun)
            other += DataFolderSweep.removeEntry(id + ".json", in: ["assemblies"], below: dataDirectory, dryRun: dryRun)
            let stray = DataFolderSweep.removeEntry(id, in: ["results"], below: dataDirectory, dryRun: dryRun)
            collected.uploads += uploads.files
            collected.results += results.files + stray.files
            collected.bytes += uploads.bytes + other.bytes + results.bytes + stray.bytes
        }
        return collected
    }
}
