import Basics
import Planning

/// A manifest's plan next to its last run, as `diff MANIFEST` shows it.
struct LastRunComparison {
    /// Assemblies a run would process.
    var process: [PlannedAssembly]
    /// Assemblies the last results hold.
    var cached: Int
    /// The last results' Assemblies no longer in the plan (not replaced).
    var gone: [(job: String, planID: String)]
    /// Assemblies replaced by a new version.
    var replaced: Int
    /// The plan the last run ran, next to this one: why Assemblies change.
    var explained: PlanDiff?
    /// The endpoint moved from (the last run's) to (this run's).
    var endpointMove: (from: String, to: String)?
    /// All Assemblies of the plan.
    var planned: Int
    /// Files per step of each job where a job is cached per step.
    var perStep: [(job: String, counts: [String: Int])]
    /// Each job's steps in the manifest's order.
    var stepOrder: [String: [String]]
    /// The last results' file.
    var resultsPath: String
}

/// How `diff` shows what changed: text for people, or JSON (`--json`). Chosen once from the arguments.
protocol DiffView: Sendable {
    /// A side could not be planned.
    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, context: CommandContext)
    /// What changed in the policy between `--base` and now.
    func policyChange(_ text: String, context: CommandContext)
    /// Two plans' difference.
    func show(_ diff: PlanDiff, context: CommandContext)
    /// The plan against the last run.
    func show(_ comparison: LastRunComparison, context: CommandContext)
}

extension DiffView {
    /// `--base` named a revision that cannot be read.
    func baseFailure(_ error: any Error, context: CommandContext) {
        context.output.failure("\(error)", hint: "--base takes a git revision (a branch, tag or commit) at which the manifest exists")
    }

    /// The line that says the endpoint changed, and what that re-processes.
    static func endpointChange(from old: String, to new: String, count: Int) -> String {
        "~ endpoint \(old.printable) -> \(new.printable): the last run's results stay with its endpoint; \(plural(count, "Assembly", "Assemblies")) processed again\n"
    }
}

/// The difference for people, on standard output.
struct HumanDiffView: DiffView {
    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, context: CommandContext) {
        context.report(diagnostics, sources: sources)
    }

    func policyChange(_ text: String, context: CommandContext) {
        context.output.out(text)
    }

    func show(_ diff: PlanDiff, context: CommandContext) {
        context.output.out(DiffRendering.text(diff, palette: context.output.colors.out))
    }

    func show(_ comparison: LastRunComparison, context: CommandContext) {
        let output = context.output
        if let move = comparison.endpointMove { output.out(Self.endpointChange(from: move.from, to: move.to, count: comparison.planned)) }
        let process = comparison.process
        if let explained = comparison.explained {
            output.out(DiffRendering.text(explained, palette: output.colors.out, summary: false))
        } else {
            for assembly in process {
                output.out("+ \(assembly.job.printable) \(assembly.id.prefix(12))  \(plural(assembly.files.count, "file")), \(ByteSize(bytes: assembly.bytes)) to process\n")
            }
            for entry in comparison.gone { output.out("- \(entry.job.printable) \(entry.planID.prefix(12).printable)  no longer in the plan\n") }
        }
        for (job, counts) in comparison.perStep {
            output.out("  job \(job.printable) work: \(StepWork.describe(counts, order: comparison.stepOrder[job] ?? []))\n")
        }
        let replaced = comparison.explained == nil ? "" : "\(comparison.replaced) replaced, "
        output.out("Since the last run (\(comparison.resultsPath)): \(process.count) to process, \(comparison.cached) cached, \(replaced)\(comparison.gone.count) gone.\n")
    }
}

/// The difference as JSON on standard output, diagnostics as JSON too.
struct JSONDiffView: DiffView {
    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, context: CommandContext) {
        context.reportJSON(diagnostics)
    }

    func policyChange(_ text: String, context: CommandContext) {}

    func show(_ diff: PlanDiff, context: CommandContext) {
        context.output.out(DiffRendering.json(diff).serialized(pretty: true) + "\n")
    }

    func show(_ comparison: LastRunComparison, context: CommandContext) {
        var object: [String: JSONValue] = [
            "process": .array(comparison.process.map { .object(["plan_id": .string($0.id), "job": .string($0.job), "files": .int($0.files.count)]) }),
            "cached": .int(comparison.cached),
            "gone": .array(comparison.gone.map { .object(["plan_id": .string($0.planID), "job": .string($0.job)]) }),
        ]
        if let explained = comparison.explained { object["changes"] = DiffRendering.json(explained) }
        if let move = comparison.endpointMove { object["endpoint"] = .object(["from": .string(move.from), "to": .string(move.to)]) }
        if !comparison.perStep.isEmpty {
            object["files_per_step"] = .object(Dictionary(uniqueKeysWithValues: comparison.perStep.map { job, counts in (job, JSONValue.object(counts.mapValues { .int($0) })) }))
        }
        context.output.out(JSONValue.object(object).serialized(pretty: true) + "\n")
    }
}
