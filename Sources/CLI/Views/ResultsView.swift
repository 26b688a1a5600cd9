import Basics
import Client
import Foundation

/// How `results` speaks: the results asked for (text, or JSON with `--json`), the merged results
/// file, and why there are none.
struct ResultsView: Sendable {
    /// `--json`: the results as JSON.
    var json = false

    /// The results of the sources asked for.
    func show(_ query: ResultsQuery, context: CommandContext) {
        context.output.out(json ? query.jsonText : query.text())
    }

    /// A piece of the merged results file, written to standard output as it is made.
    func merged(_ bytes: Data, context: CommandContext) {
        context.output.out(String(decoding: bytes, as: UTF8.self))
    }

    /// The manifest was never run (no results file).
    func noResults(_ manifest: String, at path: String, context: CommandContext) {
        context.output.failure("no results of '\(manifest)' yet (\(path))", hint: "run 'pipeline run \(manifest)' first")
    }

    /// The results file is not one.
    func unreadable(_ path: String, manifest: String, context: CommandContext) {
        context.output.failure("\(path) cannot be read as a results file", hint: "run 'pipeline run \(manifest)' again to write it afresh")
    }

    /// The results file was written by a run of another manifest.
    func writtenByAnother(_ path: String, writer: String, manifest: String, context: CommandContext) {
        context.output.error("pipeline: warning: \(path) was written by a run of '\(writer.printable)', not of '\(manifest)'\n")
    }

    /// The shards' results files cannot be merged.
    func mergeFailed(_ failure: ResultsMerge.Failure, context: CommandContext) {
        context.output.failure(failure.description, hint: failure.hint)
    }

    /// The merged file cannot be written at `out`.
    func mergeFailed(_ error: any Error, out: String?, context: CommandContext) {
        context.output.failure("\(error)", hint: "check that the folder of '\(out ?? "")' exists and is writable")
    }
}
