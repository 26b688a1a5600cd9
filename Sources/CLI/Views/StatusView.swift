import Basics
import Client
import Foundation

/// How `status` shows a run's Assemblies: a table with counts for people, or JSON (`--json`).
/// Chosen once from the arguments.
protocol StatusView: Sendable {
    /// The Assemblies of the last run in `workspace`.
    func show(_ rows: [StatusRow], workspace: Workspace, context: CommandContext)
}

extension StatusView {
    /// The run state cannot be read.
    func failure(_ message: String, context: CommandContext) {
        context.output.failure(message)
    }

    /// `--wait` found nothing left running on a server that outlives its run.
    func nothingToCollect(_ manifest: String, on address: String?, context: CommandContext) {
        context.output.failure(
            "nothing to collect: no run of \(manifest.printable) left Assemblies running on \(address ?? "the embedded engine")",
            hint: "'pipeline run \(manifest.printable) --no-wait' against 'pipeline serve' or the hosted service leaves them; 'pipeline run' waits for them itself")
    }
}

/// The Assemblies as a table, with counts, where the results are and what a run would resume.
struct HumanStatusView: StatusView {
    /// The manifest that was run, as named.
    let manifest: String

    func show(_ rows: [StatusRow], workspace: Workspace, context: CommandContext) {
        let output = context.output
        guard !rows.isEmpty else {
            return output.out("No run recorded for \(manifest) (no run state in \(workspace.stateDirectory)).\n")
        }
        let width = max(3, rows.map { ($0.job ?? "-").count }.max() ?? 3)
        func padded(_ text: String) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        output.out("\(padded("JOB"))  PLAN          ASSEMBLY                          STATUS\n")
        for row in rows {
            let status = row.status + (row.stopped ? " (interrupted)" : "")
            output.out("\(padded(row.job ?? "-"))  \(row.plan.prefix(12))  \(row.assembly.id)  \(status)".printable + "\n")
        }
        output.out(StatusRow.counts(rows) + "\n")
        let written = FileManager.default.fileExists(atPath: workspace.resultsPath)
        output.out("Results: \(workspace.resultsPath)\(written ? "" : " (not written)")\n")
        let stopped = rows.filter(\.stopped).count
        if stopped > 0 {
            let (their, them) = stopped == 1 ? ("its", "it") : ("their", "them")
            output.out("\(plural(stopped, "Assembly", "Assemblies")) stopped with \(their) run, unfinished; 'pipeline run \(manifest.printable)' resumes \(them).\n")
        }
    }
}

/// `{"results": ..., "assemblies": [...]}` on standard output.
struct JSONStatusView: StatusView {
    func show(_ rows: [StatusRow], workspace: Workspace, context: CommandContext) {
        let objects: [JSONValue] = rows.map { row in
            .object(["plan_id": .string(row.plan), "assembly_id": .string(row.assembly.id), "status": .string(row.status),
                     "job": row.job.map { .string($0) } ?? .null, "interrupted": .bool(row.isInterrupted)])
        }
        context.output.out(JSONValue.object(["results": .string(workspace.resultsPath), "assemblies": .array(objects)]).serialized(pretty: true) + "\n")
    }
}
