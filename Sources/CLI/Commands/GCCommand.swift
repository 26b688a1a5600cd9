import Basics
import Client
import Engine
import Foundation
import Spec

/// `pipeline gc`: removes the embedded engine's data that no manifest's results name.
struct GCCommand: Command {
    static let spec = CommandSpec(
        name: "gc",
        summary: "Remove the embedded engine's results that no manifest's results name any more.",
        discussion: """
        The embedded engine (endpoint: local) keeps every Assembly's files in .pipeline/engine/. A whole run that \
        completed already removes what no results name; gc does the same on demand: it keeps the Assemblies the last \
        results of every manifest of the folder name, and those still going, and removes the rest (superseded, \
        failed or canceled Assemblies, their results and uploads). Sources read in place are never touched: only \
        the engine's own links to them go. Downloads and results files are not touched either. The state of a manifest \
        renamed or removed keeps what its results name until its folder in .pipeline/manifests/ is removed; gc names it.
        """,
        arguments: [.init(name: "MANIFEST", help: "A manifest of the folder whose .pipeline/ is collected.")],
        options: [.init(name: "dry-run", help: "Say what would be removed, and remove nothing.")],
        examples: ["pipeline gc pipeline.yml", "pipeline gc pipeline.yml --dry-run"])

    let manifest: String
    let dryRun: Bool

    init(_ arguments: ParsedArguments) {
        manifest = arguments.positionals[0]
        dryRun = arguments.flag("dry-run")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let loaded = ManifestLoader(environment: context.environment).load(path: manifest)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return ExitCode.failure }
        let workspace = Workspace(manifest: manifest)
        guard FileManager.default.fileExists(atPath: workspace.engineDirectory) else {
            context.output.out("Nothing to collect: \(HumanRunView.shown(workspace.engineDirectory)) does not exist.\n")
            return ExitCode.success
        }
        do throws(FileError) { try workspace.refuseLinks() } catch {
            context.output.failure(error.description, hint: "nothing was removed")
            return ExitCode.failure
        }
        // This manifest's results as they are now name what it keeps (a results file put back by hand counts).
        let current = workspace.lastResults().map { Workspace.engineAssemblies(namedBy: $0, engineDirectory: workspace.engineDirectory) } ?? []
        let keeping: Set<String>
        do { keeping = try workspace.engineReferencesOfEveryManifest(current: current) } catch {
            context.output.failure(error.description, hint: "then run 'pipeline gc' again")
            return ExitCode.failure
        }
        let collected: CollectedGarbage
        do {
            collected = dryRun ? try LocalEngine.garbage(in: workspace.engineDirectory, keeping: keeping) : try collect(workspace, keeping: keeping, current: current)
        } catch {
            context.output.failure("the engine's data cannot be collected: \(error)", hint: "wait for the pipeline command or pipeline serve using it to end")
            return ExitCode.failure
        }
        let what = "\(plural(collected.assemblies, "Assembly", "Assemblies")) no results name (\(ByteSize(bytes: collected.bytes)))"
        context.output.out((dryRun ? "Would remove \(what)" : "Removed \(what)") + "; kept \(collected.kept).\n")
        for gone in workspace.statesOfGoneManifests {
            context.output.out("Kept for \(gone.printable), a manifest no longer here: remove .pipeline/manifests/\(gone.printable)/ if it is gone for good, then run gc again.\n")
        }
        return ExitCode.success
    }

    /// Records what this manifest's results name now, then removes the rest with the engine started on its folder.
    private func collect(_ workspace: Workspace, keeping: Set<String>, current: Set<String>) throws -> CollectedGarbage {
        try workspace.recordEngineReferences(current)
        let engine = try LocalEngine.embedded(LocalEngine.Configuration(dataDirectory: workspace.engineDirectory))
        defer { engine.stop() }
        return engine.collectGarbage(keeping: keeping)
    }
}
