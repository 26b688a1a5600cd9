import Basics
import Client
import Foundation
import Spec

/// `pipeline report`: one self-contained HTML page of a manifest's last run.
struct ReportCommand: Command {
    static let spec = CommandSpec(
        name: "report",
        summary: "Write one HTML page of the last run: each source file beside its results, with previews.",
        discussion: """
        The page needs no network: previews (images, a video's frame, an audio file's waveform, a document's first \
        page) are made from the files on this machine (the embedded engine's results, or a job's download folder) \
        and embedded, small and within a size budget; they are kept by content in .pipeline/, so a report of an \
        unchanged run makes none again, only those of new files. Other files are listed by name and size. Failures show with \
        their messages; a job and status filter works in any browser, and without JavaScript everything is shown. \
        With --compare OLD_RESULTS, results that changed are paired with their old versions, side by side.
        """,
        arguments: [.init(name: "MANIFEST", help: "The manifest that was run.")],
        options: [
            .init(name: "out", valueName: "FILE", help: "Where to write the page (default: beside the results, report.html for pipeline.yml and NAME.report.html for NAME.yml)."),
            .init(name: "compare", valueName: "OLD_RESULTS", help: "An earlier results file to compare with, result by result."),
        ],
        examples: ["pipeline report pipeline.yml", "pipeline report pipeline.yml --compare old-results.json --out review.html"])

    let arguments: ReportArguments

    init(_ arguments: ReportArguments) {
        self.arguments = arguments
    }

    /// Where the page goes unless `--out` says: beside the results, `report.html` for a
    /// `pipeline.yml` and `NAME.report.html` for any other manifest, so that two manifests whose
    /// results share a folder keep a page each.
    static func defaultPage(manifestFile: String, resultsPath: String) -> String {
        let stem = ((manifestFile as NSString).lastPathComponent as NSString).deletingPathExtension
        return FolderPath.of(resultsPath) + "/" + (stem == "pipeline" || stem.isEmpty ? "report.html" : stem + ".report.html")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = ReportView()
        let loaded = ManifestLoader(environment: context.environment).load(path: arguments.manifest)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return ExitCode.failure }
        let workspace = Workspace(manifest: manifest)
        guard let results = RunResults.load(workspace.resultsPath) else {
            view.noResults(workspace.resultsPath, manifest: arguments.manifest, context: context)
            return ExitCode.failure
        }
        // Previews of files unchanged since the last report are read back, not made again.
        let previews = PreviewCache(folder: workspace.previewsDirectory, project: workspace.directory)
        var previous: ReportModel?
        if let compare = arguments.compare {
            guard let old = RunResults.load(compare) else {
                view.unreadableComparison(compare, context: context)
                return ExitCode.failure
            }
            previous = ReportModel(results: old, manifest: manifest, workspace: workspace, previews: previews)
        }
        let page = ReportHTML.render(ReportModel(results: results, manifest: manifest, workspace: workspace, previews: previews), previous: previous)
        let target = arguments.out ?? Self.defaultPage(manifestFile: manifest.file, resultsPath: workspace.resultsPath)
        do {
            try AtomicFile.write(Data(page.utf8), to: target, below: workspace.directory)
        } catch {
            view.notWritten(error, target: target, context: context)
            return ExitCode.failure
        }
        // Only once the page is in place: the previews it did not use (of files no results name now) go.
        previews.prune()
        view.wrote(target, bytes: page.utf8.count, context: context)
        return ExitCode.success
    }
}
