import Basics
import Client
import Foundation

/// `pipeline results MANIFEST [SOURCE...]`: the last run's result files per source (as
/// `terraform output`); `pipeline results merge FILE...`: combines the results files of a sharded run.
struct ResultsCommand: Command {
    static let spec = CommandSpec(
        name: "results",
        summary: "Show the last run's result files per source, or 'merge' the results files of a sharded run.",
        discussion: """
        With a manifest: each source file of the last run with its results (step, download path or URL, \
        size, dimensions), or only the SOURCE files named (paths as the manifest's folder sees them, or \
        from the current folder); exits 1 when a source named has no results. Paths are printed as the current \
        folder sees them when it is the manifest's folder, inside it or above it (else as the manifest's folder \
        does). With 'merge': combines the results files of the shards of one run (pipeline run --shard I/N).
        """,
        arguments: [
            .init(name: "MANIFEST", help: "The manifest that was run, or 'merge' followed by the shards' results files."),
            .init(name: "SOURCE", help: "Source files to show (default: all); after 'merge', the results files.", optional: true, variadic: true),
        ],
        options: [
            .init(name: "json", help: "Print the results as JSON: {\"sources\": {path: [results]}, \"missing\": [paths]}."),
            .init(name: "out", valueName: "FILE", help: "With 'merge': where to write the merged results (default: standard output)."),
        ],
        examples: ["pipeline results pipeline.yml", "pipeline results pipeline.yml images/a.jpg --json", "pipeline results merge shard-1.json shard-2.json --out results.json"])

    let arguments: ResultsArguments

    init(_ arguments: ResultsArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        switch arguments.action {
        case .merge(let files, let out): merge(files, out: out, view: ResultsView(), context: context)
        case .show(let manifest, let sources, let json): show(manifest, sources: sources, view: ResultsView(json: json), context: context)
        }
    }

    private func show(_ manifest: String, sources: [String], view: ResultsView, context: CommandContext) -> Int32 {
        guard let (workspace, _) = LastRun.workspaceAndAddress(manifest, context: context) else { return ExitCode.failure }
        guard let results = workspace.lastResults() else {
            guard FileManager.default.fileExists(atPath: workspace.resultsPath) else {
                view.noResults(manifest, at: workspace.resultsPath, context: context)
                return ExitCode.failure
            }
            view.unreadable(workspace.resultsPath, manifest: manifest, context: context)
            return ExitCode.failure
        }
        if let writer = results.manifest, writer != workspace.manifestFromResults {
            view.writtenByAnother(workspace.resultsPath, writer: writer, manifest: manifest, context: context)
        }
        // A source as the results name it, relative to the manifest's folder: as given from here
        // (inside that folder), else as given from the manifest's folder.
        let known = Set(results.assemblies.flatMap { $0.files.map { ExactName($0.path) } })
        let wanted = sources.map { source in
            let fromHere = RealPath.relative(source, inside: workspace.directory)
            return fromHere.flatMap { known.contains(ExactName($0)) || !known.contains(ExactName(source)) ? $0 : nil } ?? source
        }
        // Printed as a shell in the current folder takes them, when that folder is the manifest's,
        // one inside it or one above it; from anywhere else, as the manifest's folder sees them.
        let here = FileManager.default.currentDirectoryPath, folder = RealPath.of(workspace.directory) ?? workspace.directory
        let related = RealPath.isInside(here, folder) || RealPath.isInside(folder, here)
        let shown = { (path: String) in related && !path.hasPrefix("/") ? RealPath.relative(folder + "/" + path, from: here) : path }
        let query = ResultsQuery(Self.relocated(results, shown), wanted: wanted.map(shown))
        view.show(query, context: context)
        return query.missing.isEmpty && !(query.sources.isEmpty && wanted.isEmpty) ? ExitCode.success : ExitCode.failure
    }

    /// `results` with every source and download path passed through `shown`.
    static func relocated(_ results: RunResults, _ shown: (String) -> String) -> RunResults {
        var moved = results
        for index in moved.assemblies.indices {
            for file in moved.assemblies[index].files.indices { moved.assemblies[index].files[file].path = shown(moved.assemblies[index].files[file].path) }
            moved.assemblies[index].results = moved.assemblies[index].results.mapValues { files in
                files.map { file in
                    var file = file
                    file.source = file.source.map(shown)
                    file.localPath = file.localPath.map(shown)
                    return file
                }
            }
        }
        return moved
    }

    private func merge(_ files: [String], out: String?, view: ResultsView, context: CommandContext) -> Int32 {
        let completed: Bool
        do {
            if let out {
                var merged = false
                try AtomicFile.write(to: out) { emit in merged = try ResultsMerge.merge(files, emit: emit) }
                completed = merged
            } else {
                completed = try ResultsMerge.merge(files) { view.merged($0, context: context) }
            }
        } catch let failure as ResultsMerge.Failure {
            view.mergeFailed(failure, context: context)
            return ExitCode.failure
        } catch {
            view.mergeFailed(error, out: out, context: context)
            return ExitCode.failure
        }
        return completed ? ExitCode.success : ExitCode.failure
    }
}
