import Basics
import Client
import Crypto
import Foundation
import Planning

/// What `plan` knows besides the plan, gathered only for a view that shows it.
struct PlanContext {
    /// What a run would do, and take from the last results.
    var work: RunWork?
    /// This plan next to the one the last run ran: why Assemblies change.
    var changes: PlanDiff?
    /// What the run would count.
    var usage: UsageReport?
    /// Each job's steps in the manifest's order.
    var stepOrder: [String: [String]] = [:]
    /// The manifest's Templates against the endpoint's, rendered.
    var templates: String?
    /// The last run's results.
    var lastResults: RunResults?
    /// Where `--out` wrote the plan.
    var out: String?
}

/// How `plan` is shown: text for people, the plan as JSON, or Markdown for a pull request or a
/// step summary. Chosen once from `--format` (or `--json`).
protocol PlanView: Sendable {
    /// Whether it shows what the last run knows (usage, what is cached, changes, Templates): a
    /// view that does not is spared gathering it.
    var showsContext: Bool { get }
    /// The manifest could not be planned.
    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, manifest: String, context: CommandContext)
    /// The run would count more than `--max-bytes` (after the failure is said).
    func overBudget(_ usage: UsageReport, maxBytes: Int64, context: CommandContext)
    /// The plan.
    func show(_ plan: Plan, warnings: [Diagnostic], with known: PlanContext, context: CommandContext)
}

extension PlanView {
    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, manifest: String, context: CommandContext) {
        context.report(diagnostics, sources: sources)
    }

    func overBudget(_ usage: UsageReport, maxBytes: Int64, context: CommandContext) {}
}

/// The plan for people: a summary per job, usage, what changed since the last run, Templates.
struct TextPlanView: PlanView {
    var showsContext: Bool { true }

    func show(_ plan: Plan, warnings: [Diagnostic], with known: PlanContext, context: CommandContext) {
        context.output.out(PlanSummary.render(plan, work: known.work, stepOrder: known.stepOrder, palette: context.output.colors.out))
        if let usage = known.usage { context.output.out(usage.text) }
        if let changes = known.changes {
            let causes = ChangeCauses(changes, work: known.work, stepOrder: known.stepOrder)
            if !causes.jobs.isEmpty {
                context.output.out("Since the last run:\n" + causes.jobs.map { job in
                    job.causes.map { "  \($0.sign) job \(job.name.printable): \($0.text.printable)\n" }.joined()
                }.joined())
            }
        }
        if let templates = known.templates { context.output.out(templates) }
        if let out = known.out { context.output.out("Wrote \(out).\n") }
    }
}

/// The plan as JSON on standard output (`--format json`), diagnostics as JSON too.
struct JSONPlanView: PlanView {
    var showsContext: Bool { false }

    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, manifest: String, context: CommandContext) {
        context.reportJSON(diagnostics)
    }

    func show(_ plan: Plan, warnings: [Diagnostic], with known: PlanContext, context: CommandContext) {
        plan.writeJSON(warnings: warnings) { context.output.out(String(decoding: $0, as: UTF8.self)) }
    }
}

/// The plan in Markdown (`--format markdown`), for a pull request or `$GITHUB_STEP_SUMMARY`:
/// a failure or a budget exceeded is said there too, rather than nothing.
struct MarkdownPlanView: PlanView {
    var showsContext: Bool { true }

    func failure(_ diagnostics: [Diagnostic], sources: SourceStore, manifest: String, context: CommandContext) {
        context.report(diagnostics, sources: sources)
        context.output.out(PlanMarkdown.failure(manifest: manifest, errors: diagnostics.filter { $0.severity == .error }))
    }

    func overBudget(_ usage: UsageReport, maxBytes: Int64, context: CommandContext) {
        context.output.out(usage.markdownOverBudget(maxBytes))
    }

    func show(_ plan: Plan, warnings: [Diagnostic], with known: PlanContext, context: CommandContext) {
        let previous = known.lastResults?.assemblies ?? []
        let planned = Set(plan.assemblies.map(\.id))
        // An Assembly replaced by a new version is a change (explained), not a loss.
        let replaced = ChangeCauses.replaced(in: known.changes)
        let gone = previous.filter { !planned.contains($0.planID) && !replaced.contains($0.planID) }.map { (job: $0.job, planID: $0.planID) }
        var files: [ExactName: SHA256Digest] = [:]
        for entry in previous { for file in entry.files { files[ExactName(file.path)] = file.digest } }
        context.output.out(PlanMarkdown.render(
            plan, work: known.work, gone: gone, previous: files, changes: known.changes, usage: known.usage, stepOrder: known.stepOrder,
            warnings: warnings, templates: known.templates))
    }
}
