import Basics
import Foundation
import Wire

/// Which of the embedded engine's Assemblies each manifest's results name, so that the engine's
/// data (shared by the manifests of one folder) keeps those and nothing else.
extension Workspace {
    /// `engine-assemblies.json` in the manifest's own state (one per shard, as the run state): the
    /// engine's Assemblies its last results name.
    public func engineReferencesFile(shard: (index: Int, count: Int)?) -> String {
        manifestStateDirectory + "/" + (shard.map { "engine-assemblies-\($0.index)of\($0.count).json" } ?? "engine-assemblies.json")
    }

    /// What of the engine in `engineDirectory` `results` name: the Assemblies entries name by
    /// id, whole; of the others, the folders of the result files they name (`EngineReferences`).
    public static func engineReferences(namedBy results: RunResults, engineDirectory: String) -> EngineReferences {
        let layout = EngineDataLayout(engineDirectory)
        var references = EngineReferences(whole: Set(results.assemblies.compactMap(\.assemblyID)))
        for entry in results.assemblies {
            for file in entry.results.values.joined() {
                guard let url = file.url, url.lowercased().hasPrefix("file://"), let path = URL(string: url)?.path,
                      let place = layout.resultPlace(of: path) else { continue }
                // A file right in the Assembly's folder is no result the engine made there: all of it stays.
                if place.folder.isEmpty { references.keepWhole([place.assembly]) } else { references.keep(place.folder, of: place.assembly) }
            }
        }
        return references
    }

    /// Records what of the engine `results` (of `shard`, if any) name, as this manifest's.
    public func recordEngineReferences(_ results: RunResults, shard: (index: Int, count: Int)?) throws {
        try recordEngineReferences(Self.engineReferences(namedBy: results, engineDirectory: engineDirectory), shard: shard)
    }

    /// Records `references` as what this manifest's results (of `shard`, if any) name of the engine.
    public func recordEngineReferences(_ references: EngineReferences, shard: (index: Int, count: Int)? = nil) throws {
        try FileManager.default.createDirectory(atPath: manifestStateDirectory, withIntermediateDirectories: true)
        try AtomicFile.write(try StateCoding.encoder.encode(references), to: engineReferencesFile(shard: shard), durable: false)
    }

    /// What of the engine the results of every manifest of this folder name, and the Assemblies
    /// its run state names (a run killed part-way has results only there), whole where no
    /// results name them. A manifest that ran but whose state records none (it last ran with an
    /// older version, or its record cannot be read) stops the answer: what it needs is unknown.
    /// With `current`, this manifest's results are taken to name that (its record is not read).
    public func engineReferencesOfEveryManifest(current: EngineReferences? = nil) throws(UnreferencedState) -> EngineReferences {
        let own = (manifestStateDirectory as NSString).lastPathComponent
        let manifests = stateDirectory + "/manifests"
        var references = EngineReferences()
        let names: [String]
        do { names = try FileSystem.names(in: manifests) } catch { return references }  // no manifest has run here
        for name in names.sorted() {
            let folder = manifests + "/" + name
            // A manifest's state that cannot be read says nothing of what it needs: it stops the answer.
            let files = try Self.readOrUnreferenced(name) { try FileSystem.names(in: folder) }.sorted()
            // Run states and their journals (a lock file, left by a run refused at once, says nothing).
            let runStates = files.filter { $0.hasPrefix("run-state") && ($0.hasSuffix(".json") || $0.hasSuffix(".journal")) }
            let records = files.filter { $0.hasPrefix("engine-assemblies") && $0.hasSuffix(".json") }
            var named = EngineReferences()
            if name == own, let current {
                named = current
            } else if !records.isEmpty {
                for record in records {
                    named.formUnion(try Self.readOrUnreferenced(name) {
                        try StateCoding.decode(EngineReferences.self, from: try FileReading.read(folder + "/" + record, limit: 1 << 30))
                    })
                }
            } else if runStates.isEmpty {
                continue  // never ran: names nothing
            } else if !runStates.allSatisfy({ $0.hasSuffix(".journal") }) {
                // Without a record, only a first run killed part-way (its journal alone) says all it made.
                throw UnreferencedState(manifest: name)
            }
            let states = Set(files.map { $0.hasSuffix(".journal") ? String($0.dropLast(".journal".count)) : $0 }.filter { $0.hasPrefix("run-state") && $0.hasSuffix(".json") })
            for state in states.sorted() {
                let entries = try Self.readOrUnreferenced(name) { try RunState.read(folder + "/" + state) }
                named.keepUnnamed(entries.values.map(\.assemblyID))
            }
            references.formUnion(named)
        }
        return references
    }

    /// What `read` reads of manifest `name`'s state; any failure is that state not saying what it needs.
    private static func readOrUnreferenced<Value>(_ name: String, _ read: () throws -> Value) throws(UnreferencedState) -> Value {
        do { return try read() } catch { throw UnreferencedState(manifest: name) }
    }
}

extension Workspace {
    /// The state folders of manifests no longer in this folder (renamed or removed): what their
    /// results name is kept until the folder is removed.
    public var statesOfGoneManifests: [String] {
        let names = FileSystem.namesOrNone(in: stateDirectory + "/manifests")
        return names.sorted().filter { name in
            !FileManager.default.fileExists(atPath: directory + "/" + name + ".yml") && !FileManager.default.fileExists(atPath: directory + "/" + name)
        }
    }
}

/// A manifest's state that does not say which of the engine's Assemblies its results need.
public struct UnreferencedState: Error, CustomStringConvertible {
    /// The manifest's state name (its file name without `.yml`).
    public var manifest: String

    public var description: String {
        "the state of manifest '\(manifest.printable)' (.pipeline/manifests/\(manifest.printable)/) does not record which of the engine's Assemblies its results need; "
            + "nothing was removed. Run that manifest once, or remove its state folder if the manifest is gone"
    }
}
