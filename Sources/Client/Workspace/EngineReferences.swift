import Basics
import Foundation
import Wire

/// What the results of a folder's manifests need of the embedded engine's data: Assemblies kept
/// whole, and of each other Assembly only the result files the results name.
///
/// An Assembly is kept whole when an entry names it by id (it ran for the entry's files as they
/// are, or failed, or is still going), when only a run state names it (a run killed before its
/// results were written), or when a record an older version wrote names it. One the results name
/// only through result URLs is an earlier run's Assembly whose batch may hold sources that are no
/// longer inputs: of it the engine keeps the named results and the uploads they were made from
/// (`LocalEngine.collectGarbage(keeping:trimming:)`). A record of this is input: it can only keep
/// more, never aim a removal outside the engine's data folder.
public struct EngineReferences: Sendable, Equatable {
    /// Assemblies kept as they are.
    public private(set) var whole: Set<String> = []
    /// Per Assembly named only through result files, the folders (below `results/<id>/`) of those files.
    public private(set) var files: [String: Set<String>] = [:]

    /// References to the Assemblies `whole`, kept whole.
    public init(whole: Set<String> = []) {
        keepWhole(whole)
    }

    /// Every Assembly named, whole or in part.
    public var assemblies: Set<String> { whole.union(files.keys) }

    /// Keeps the Assemblies `ids` whole (an id that is not one is skipped).
    public mutating func keepWhole<Ids: Sequence<String>>(_ ids: Ids) {
        for id in ids where AssemblyID.isValid(id) {
            whole.insert(id)
            files.removeValue(forKey: id)
        }
    }

    /// Keeps the result folder `folder` of Assembly `id` (unless the Assembly is kept whole).
    public mutating func keep(_ folder: String, of id: String) {
        guard AssemblyID.isValid(id), !whole.contains(id) else { return }
        files[id, default: []].insert(folder)
    }

    /// Adds what `other` keeps: an Assembly either keeps whole stays whole.
    public mutating func formUnion(_ other: EngineReferences) {
        keepWhole(other.whole)
        for (id, folders) in other.files { for folder in folders { keep(folder, of: id) } }
    }

    /// Keeps whole the Assemblies of `ids` that nothing names yet (those a run state names).
    public mutating func keepUnnamed(_ ids: [String]) {
        let named = assemblies
        keepWhole(ids.filter { !named.contains($0) })
    }
}

extension EngineReferences: Codable {
    private enum Keys: String, CodingKey { case whole, files }

    /// Reads `{"whole": [...], "files": {id: [...]}}`, or the list of ids older versions wrote (each kept whole).
    public init(from decoder: any Decoder) throws {
        if let ids = try? decoder.singleValueContainer().decode([String].self) {  // not a list: the object this version writes
            self.init(whole: Set(ids))
            return
        }
        let values = try decoder.container(keyedBy: Keys.self)
        self.init(whole: Set(try values.decodeIfPresent([String].self, forKey: .whole) ?? []))
        for (id, folders) in try values.decodeIfPresent([String: [String]].self, forKey: .files) ?? [:] {
            for folder in folders { keep(folder, of: id) }
        }
    }

    /// Writes `{"whole": [...], "files": {id: [...]}}`, sorted.
    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encode(whole.sorted(), forKey: .whole)
        try values.encode(files.mapValues { $0.sorted() }, forKey: .files)
    }
}
