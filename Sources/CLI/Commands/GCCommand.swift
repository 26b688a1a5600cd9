import Basics
import Client
import Engine
import Foundation
import Spec

/// `pipeline gc`: removes the embedded engine's data and the downloads that no results name.
struct GCCommand: Command {
    static let spec = CommandSpec(
        name: "gc",
        summary: "Remove the embedded engine's data and the downloads that no results name any more.",
        discussion: """
        The embedded engine (endpoint: local) keeps every Assembly's files in .pipeline/engine/. A whole run that \
        completed already removes what no results name; gc does the same on demand: it keeps the Assemblies the last \
        results of every manifest of the folder name, and those still going, and removes the rest (superseded, \
        failed or canceled Assemblies, their results and uploads). Of an Assembly the results name only in part (it \
        batched a source that is no longer an input) it keeps the named results and the uploads they were made from: \
        the other uploads (links to, or copies of, the sources that went) and results go. Sources read in place are \
        never touched: only the engine's own links to them go. Files runs downloaded into a folder no job downloads \
        into any more (download: moved or dropped) go too, only those exactly as a download wrote them. The state of a \
        manifest renamed or removed keeps what its results name until its folder in .pipeline/manifests/ is removed; \
        gc names it.
        """,
        arguments: [.init(name: "MANIFEST", help: "A manifest of the folder whose .pipeline/ is collected.")],
        options: [.init(name: "dry-run", help: "Say what would be removed, and remove nothing.")],
        examples: ["pipeline gc pipeline.yml", "pipeline gc pipeline.yml --dry-run"])

    let arguments: GCArguments

    init(_ arguments: GCArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = GCView(dryRun: arguments.dryRun)
        let loaded = ManifestLoader(environment: context.environment).load(path: arguments.manifest)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return ExitCode.failure }
        let workspace = Workspace(manifest: manifest)
        do throws(FileError) { try workspace.refuseLinks() } catch {
            view.failure(error.description, hint: "nothing was removed", context: context)
            return ExitCode.failure
        }
        let hasEngine = FileManager.default.fileExists(atPath: workspace.engineDirectory)
        // This manifest's results as they are now name what it keeps (a results file put back by hand counts).
        let current = workspace.lastResults().map { Workspace.engineReferences(namedBy: $0, engineDirectory: workspace.engineDirectory) } ?? EngineReferences()
        var keeping = EngineReferences()
        if hasEngine {
            do { keeping = try workspace.engineReferencesOfEveryManifest(current: current) } catch {
                view.failure(error.description, hint: "then run 'pipeline gc' again", context: context)
                return ExitCode.failure
            }
        }
        let ledgered = FileManager.default.fileExists(atPath: workspace.downloadsFile)
        let downloads = workspace.pruneAbandonedDownloads(keeping: manifest.jobs.compactMap { $0.download.map { manifest.path($0.value) } }, dryRun: arguments.dryRun)
        if hasEngine {
            let collected: CollectedGarbage
            do {
                collected = arguments.dryRun
                    ? try LocalEngine.garbage(in: workspace.engineDirectory, keeping: keeping.whole, trimming: keeping.files)
                    : try collect(workspace, keeping: keeping, current: current, view: view, output: context.output)
            } catch {
                view.engineBusy(error, context: context)
                return ExitCode.failure
            }
            view.collected(collected, context: context)
        } else {
            view.noEngine(workspace.engineDirectory, context: context)
        }
        if ledgered || downloads.files > 0 {
            view.downloads(downloads.files, bytes: downloads.bytes, context: context)
        }
        for gone in workspace.statesOfGoneManifests {
            view.keptForGoneManifest(gone, context: context)
        }
        return ExitCode.success
    }

    /// How long gc waits for another command or a `pipeline serve` to leave the engine's folder.
    static let engineWait: Duration = .seconds(30)

    /// Records what this manifest's results name now, then removes the rest with the engine started
    /// on its folder, once no other engine uses it (waiting up to `engineWait`, saying so).
    private func collect(_ workspace: Workspace, keeping: EngineReferences, current: EngineReferences, view: GCView, output: Output) throws -> CollectedGarbage {
        try workspace.recordEngineReferences(current)
        var settings = LocalEngine.Configuration(dataDirectory: workspace.engineDirectory)
        let folder = workspace.engineDirectory, wait = Self.engineWait
        let deadline = ContinuousClock.now + wait
        settings.whileWaitingForTheFolder = {
            view.waiting(for: folder, upTo: wait, output: output)
        }
        settings.stopWaiting = { ContinuousClock.now >= deadline }
        let engine: LocalEngine
        do { engine = try LocalEngine.embedded(settings) } catch is WaitInterrupted {
            throw DataFolderStillInUse(folder: folder, waited: wait)
        }
        defer { engine.stop() }
        return engine.collectGarbage(keeping: keeping.whole, trimming: keeping.files)
    }
}

/// The engine's folder stayed in use for as long as gc waits.
struct DataFolderStillInUse: Error, CustomStringConvertible {
    var folder: String
    var waited: Duration
    var description: String {
        "'\(folder.printable)' stayed in use for \(waited.components.seconds) s (a pipeline serve, or another command's embedded engine); nothing of it was removed"
    }
}
