import APIClients
import Basics
import Wire
import Foundation
import Spec
import Planning

/// Everything a manifest's runs keep on disk, and the one owner of those paths: `.pipeline/`
/// beside the manifest, shared by the manifests of one folder (the embedded engine's data, upload
/// resume state by Assembly) with a folder of each manifest's own (`manifests/<name>/`:
/// run state per shard, the run lock, the digest cache, synced Templates), and the results file.
/// Nothing in it holds a secret.
public struct Workspace: Sendable, Equatable {
    /// The folder holding the manifest; plan paths are relative to it.
    public let directory: String
    /// Where results are written: `--results`, else the manifest's `results:`, else `results.json` beside it.
    public let resultsPath: String
    /// The manifest's name (its file name, without `.yml`), which names its own state folder; nil keeps that state in `.pipeline/` itself.
    public let manifestName: String?
    /// The manifest's file name, which its results record; nil for commands without a manifest.
    public let manifestFile: String?
    /// Whether the results go elsewhere than the manifest says (`--results`): such results are
    /// not what the manifest's state records as needed.
    public var resultsOverridden = false

    /// The workspace of `manifest`, with the results file `override` when given. State an older
    /// version kept for the whole folder is copied into the manifest's own folder the first time.
    public init(manifest: Manifest, resultsOverride override: String? = nil) {
        directory = manifest.directory
        resultsPath = override ?? manifest.results.map { manifest.path($0.value) } ?? manifest.path("results.json")
        resultsOverridden = override != nil
        manifestName = Self.stateName(of: manifest.file)
        manifestFile = (manifest.file as NSString).lastPathComponent
        adoptYAMLState()
        adoptFolderState()
    }

    /// The name of a manifest's own state folder: its file name without `.yml` (`pipeline.yml`
    /// keeps its state in `.pipeline/manifests/pipeline/`); any other name whole, so `a.yml` and
    /// `a.yaml` in one folder keep theirs apart (`manifests/a/` and `manifests/a.yaml/`).
    static func stateName(of file: String) -> String {
        let name = (file as NSString).lastPathComponent
        let bare = (name as NSString).pathExtension.lowercased() == "yml" ? (name as NSString).deletingPathExtension : name
        return FileNames.safeComponent(bare)
    }

    /// A workspace at `directory`, writing results to `resultsPath`.
    public init(directory: String, resultsPath: String, manifestName: String? = nil, manifestFile: String? = nil) {
        self.directory = directory
        self.resultsPath = resultsPath
        self.manifestName = manifestName
        self.manifestFile = manifestFile
    }

    /// `.pipeline/` beside the manifest.
    public var stateDirectory: String { directory + "/.pipeline" }

    /// The manifest's own state: `.pipeline/manifests/<name>/`.
    public var manifestStateDirectory: String { manifestName.map { stateDirectory + "/manifests/" + $0 } ?? stateDirectory }

    /// File digests remembered between plans, by path and `stat` identity.
    public var digestCacheFile: String { manifestStateDirectory + "/digests" }

    /// The files runs wrote into the manifest's download folders (`DownloadLedger`).
    public var downloadsFile: String { manifestStateDirectory + "/downloads.json" }

    /// The MD5s of the files downloads wrote, by their identity then (`DownloadDigests`).
    public var downloadDigestsFile: String { manifestStateDirectory + "/download-digests.json" }

    /// The embedded engine's data (`endpoint: local`).
    public var engineDirectory: String { stateDirectory + "/engine" }

    /// The plan the last whole run ran (`last-plan.json`), so a later plan can say what changed and why.
    public var lastPlanFile: String { manifestStateDirectory + "/last-plan.json" }

    /// The plan files `pipeline plan --out` wrote for this manifest (`WrittenPlans`).
    public var writtenPlansFile: String { manifestStateDirectory + "/written-plans.json" }

    /// The plan the last whole run ran, if one was kept and still reads.
    public func lastPlan() -> Plan? {
        // None kept yet, or an older format: explained by counts only.
        do { return try Plan.decode(try FileReading.read(lastPlanFile, limit: 1 << 30), file: lastPlanFile) } catch { return nil }
    }

    /// Where `pipeline upload` keeps its upload URLs for resuming.
    public var uploadsDirectory: String { stateDirectory + "/uploads" }

    /// The workspace of the current folder, for commands without a manifest (`serve`, `upload`).
    public static var here: Workspace {
        let folder = FileManager.default.currentDirectoryPath
        return Workspace(directory: folder, resultsPath: folder + "/results.json")
    }

    /// Where the uploads of one Assembly remember their URLs.
    /// Nil for anything but a well-formed Assembly id, which could otherwise name another folder.
    public func uploadsDirectory(assemblyID: String) -> String? {
        AssemblyID.isValid(assemblyID) ? stateDirectory + "/uploads/" + assemblyID : nil
    }

    /// The run state of a whole run, or of shard `index` of `count` (shards never share one).
    public func runStateFile(shard: (index: Int, count: Int)?) -> String {
        manifestStateDirectory + "/" + (shard.map { "run-state-\($0.index)of\($0.count).json" } ?? "run-state.json")
    }

    /// Every run-state file: the whole run's and each shard's, including those a run in progress
    /// (or a killed one) has so far only journaled.
    public var runStateFiles: [String] {
        get throws(UnreadableState) {
            let names: [String]
            do { names = try FileSystem.names(in: manifestStateDirectory) } catch { throw UnreadableState(path: manifestStateDirectory, reason: error.shortReason) }
            return Self.runStateFiles(names, in: manifestStateDirectory)
        }
    }

    private static func runStateFiles(_ names: [String], in manifestStateDirectory: String) -> [String] {
        let files = names.map { $0.hasSuffix(".journal") ? String($0.dropLast(".journal".count)) : $0 }
            .filter { $0 == "run-state.json" || ($0.hasPrefix("run-state-") && $0.hasSuffix(".json")) }
        return Set(files).sorted().map { manifestStateDirectory + "/" + $0 }
    }

    /// The Assemblies that runs started, by plan id, over every shard (or the run-state `files`
    /// given); with `endpoint` (its key), only those made there (or where the state does not say).
    /// An unreadable state file is an error, as it is for a run. The state is not trusted to say
    /// where an Assembly lives: a stored URL is kept only on the origin of `address` (the
    /// endpoint's URL), any other is replaced by the endpoint's own URL for the id; without an
    /// `address` (the embedded engine, gone with its run) there is none.
    public func startedAssemblies(in files: [String]? = nil, address: String?, endpoint: String? = nil) throws(UnreadableState) -> [String: StartedAssembly] {
        var started: [String: StartedAssembly] = [:]
        let chosen: [String]
        if let files { chosen = files } else { chosen = try runStateFiles }
        for file in chosen {
            // A state file is not trusted to name Assemblies: an id that is not one is skipped.
            for (key, entry) in try RunState.read(file) where AssemblyID.isValid(entry.assemblyID) && (endpoint == nil || entry.endpoint == nil || entry.endpoint == endpoint) {
                let url = address.map { entry.assemblyURL(on: $0) ?? $0 + "/assemblies/" + entry.assemblyID }
                started[RunState.planID(of: key)] = StartedAssembly(
                    id: entry.assemblyID, url: url, reference: address.map(entry.reference(on:)) ?? AssemblyReference(id: entry.assemblyID),
                    endpoint: entry.endpoint, job: entry.job, partOf: entry.partOf)
            }
        }
        return started
    }

    /// The last results (the entries `keep` accepts), if any could be read.
    public func lastResults(keep: (RunResults.Entry) -> Bool = { _ in true }) -> RunResults? { RunResults.load(resultsPath, keep: keep) }
}

/// An Assembly a run started: its id, and its URL once the create was answered.
public struct StartedAssembly: Sendable, Equatable {
    /// The Assembly id.
    public var id: String
    /// Where its status is read.
    public var url: String?
    /// How a service is asked about it: by id, at its stored URL where that is trusted.
    public var reference: AssemblyReference
    /// The endpoint it was created on, as the user named it.
    public var endpoint: String?
    /// The job it ran for, when the state says.
    public var job: String?
    /// For an Assembly of the steps some files missed, the plan id of the planned Assembly it made part of.
    public var partOf: String?
}
