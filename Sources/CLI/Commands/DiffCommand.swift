import Basics
import Client
import Foundation
import Planning
import Spec

/// `pipeline diff`: how two plans (or manifests, planned on the fly) differ.
struct DiffCommand: Command {
    static let spec = CommandSpec(
        name: "diff",
        summary: "Compare two plans (or manifests), or a manifest with its last run, Assembly by Assembly.",
        discussion: """
        Each side is a plan JSON file (from 'pipeline plan --out') or a manifest, which is planned on the fly. \
        Shows Assemblies to create, change and remove; within a change, which steps, options and files changed. \
        With one manifest, compares its plan with the last run: what would be processed, what is cached, what \
        would disappear, and why (the options, Templates and files that changed since the plan the last run ran). \
        With one manifest and --base REF, compares it with the manifest (and its policy file) at the git revision \
        REF, over the files as they are now: what a pull request changes, with no state at all.
        """,
        arguments: [
            .init(name: "OLD", help: "The plan or manifest before the change (default: the manifest found as other commands find it).", isManifest: true),
            .init(name: "NEW", help: "The plan or manifest after the change (omit to compare a manifest with its last run).", optional: true),
        ],
        options: [
            .init(name: "json", help: "Print the differences as JSON."),
            .init(name: "exit-code", help: "Exit 2 when there are differences, 0 when there are none."),
            .init(name: "policy", valueName: "FILE", help: "Check manifests against this policy instead of their 'policy:'."),
            .init(name: "base", valueName: "REF", help: "Compare the manifest with itself at this git revision (a pull request's base branch)."),
            .init(name: "endpoint", valueName: "URL", help: "Against the last run: the endpoint the next run goes to, when not the manifest's (as run --endpoint; 'local' for the embedded engine)."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline diff plan.json pipeline.yml", "pipeline diff old-plan.json new-plan.json --exit-code", "pipeline diff pipeline.yml --base origin/main"])

    let arguments: DiffArguments
    private var old: String { arguments.old }
    private var new: String? { arguments.new }
    private var json: Bool { arguments.json }
    private var exitCode: Bool { arguments.exitCode }
    private var policy: String? { arguments.policy }
    private var base: String? { arguments.base }
    private var endpoint: String? { arguments.endpoint }
    /// How the difference is shown.
    private var view: any DiffView { json ? JSONDiffView() : HumanDiffView() }

    init(_ arguments: DiffArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async -> Int32 {
        let sides = [old] + (new.map { [$0] } ?? [])
        let manifests = sides.filter { !$0.hasSuffix(".json") }.compactMap { ManifestLoader(environment: context.environment).load(path: $0).value }
        let session = await ProjectLoader(environment: context.environment, policyPath: policy, http: context.http).session(for: manifests)
        return compare(context, fetchedPolicies: session.fetchedPolicies)
    }

    private func compare(_ context: CommandContext, fetchedPolicies: [String: Data]) -> Int32 {
        if let base { return againstRevision(base, context, fetchedPolicies: fetchedPolicies) }
        guard let new else { return againstLastRun(context, fetchedPolicies: fetchedPolicies) }
        return render(load(old, context, fetchedPolicies: fetchedPolicies), load(new, context, fetchedPolicies: fetchedPolicies), context)
    }

    /// The manifest at `revision` (and the policy file it names there), planned over today's files, next to the manifest now.
    private func againstRevision(_ revision: String, _ context: CommandContext, fetchedPolicies: [String: Data]) -> Int32 {
        let revisionFiles = GitRevision(revision: revision, file: old)
        let before: Loaded<Plan>
        var policyChange: String?
        do {
            guard let text = try revisionFiles.show((old as NSString).lastPathComponent) else {
                throw GitRevision.Failure(message: "'\(old.printable)' is not in the repository at \(revisionFiles.shown)")
            }
            // Named for the revision, so its own errors are never quoted from the working tree's lines.
            let manifest = ManifestLoader(environment: context.environment).decode(text, file: old + "@" + revisionFiles.shown)
            var session = PlanningSession(environment: context.environment, policyPath: policy, fetchedPolicies: fetchedPolicies)
            // The policy as it was too, when the manifest names a file (a URL is the same either way).
            var basePolicy: TemporaryFile?
            if policy == nil, let named = manifest.value?.policy?.value, !named.contains("://") {
                basePolicy = try TemporaryFile(contents: try revisionFiles.show(named) ?? Data())
                session.policyPath = basePolicy?.path
            }
            defer { basePolicy?.remove() }
            // A base manifest that does not read names no policy to compare; its errors say why.
            if manifest.value != nil { policyChange = try PolicyChange.describe(base: manifest.value?.policy?.value, revision: revisionFiles, current: ManifestLoader(environment: context.environment).load(path: old).value, manifestPath: old) }
            before = session.plan(session.project(manifest), workers: ParallelWork.cores)
        } catch {
            view.baseFailure(error, context: context)
            return ExitCode.failure
        }
        if let policyChange { view.policyChange(policyChange, context: context) }
        return render(before, load(old, context, fetchedPolicies: fetchedPolicies), context, changedPolicy: policyChange != nil)
    }

    private func render(_ before: Loaded<Plan>, _ after: Loaded<Plan>, _ context: CommandContext, changedPolicy: Bool = false) -> Int32 {
        guard let oldPlan = before.value, let newPlan = after.value else {
            let diagnostics = before.diagnostics + after.diagnostics
            var sources = before.sources
            sources.merge(after.sources)
            view.failure(diagnostics, sources: sources, context: context)
            return ExitCode.failure
        }
        let diff = PlanDiff(old: oldPlan, new: newPlan)
        view.show(diff, context: context)
        return exitCode && !(diff.isEmpty && !changedPolicy) ? ExitCode.changes : ExitCode.success
    }

    /// The manifest's plan next to its last results: to process, cached, gone.
    private func againstLastRun(_ context: CommandContext, fetchedPolicies: [String: Data]) -> Int32 {
        let planned = load(old, context, fetchedPolicies: fetchedPolicies)
        guard let plan = planned.value, let workspace = LastRun.workspace(old, context: context) else {
            context.report(planned.diagnostics, sources: planned.sources)
            return ExitCode.failure
        }
        let last = workspace.lastResults()
        let previous = last?.assemblies ?? []
        // Results are reused only on the endpoint that made them (as `run` does): a new endpoint
        // (or account) processes everything again, and says so.
        let manifest = ManifestLoader(environment: context.environment).load(path: old).value
        let endpoint = manifest.map { Endpoint.of($0, override: self.endpoint, environment: context.environment).key }
        let movedFrom = last?.endpoint.flatMap { earlier in endpoint.flatMap { earlier != $0 ? earlier : nil } }
        // What a run would do, worked out as `run` does (per step where a job is cached so).
        let work = manifest.map { LastRun.work(plan, manifest: $0, workspace: workspace, endpointOverride: self.endpoint, environment: context.environment) }
        let completed = work?.cachedIDs ?? []
        let planIDs = Set(plan.assemblies.map(\.id))
        let process = plan.assemblies.filter { !completed.contains($0.id) }
        let order = Dictionary((manifest?.jobs ?? []).map { ($0.name.value, $0.steps.map(\.name.value)) }, uniquingKeysWith: { first, _ in first })
        let perStep = plan.jobs.compactMap { job in work?.filesPerStep(job: job).map { (job, $0) } }
        let cached = plan.assemblies.count - process.count
        // Why they change: the plan the last run ran, next to this one. An Assembly replaced by a
        // new version is a change, not a loss.
        let explained = LastRun.lastPlan(workspace, context: context).map { PlanDiff(old: $0, new: plan) }
        let replaced = ChangeCauses.replaced(in: explained)
        let gone = previous.filter { !planIDs.contains($0.planID) && !replaced.contains($0.planID) }
        view.show(LastRunComparison(
            process: process, cached: cached, gone: gone.map { ($0.job, $0.planID) }, replaced: replaced.count, explained: explained,
            endpointMove: movedFrom.flatMap { from in endpoint.map { (from, $0) } }, planned: plan.assemblies.count,
            perStep: perStep, stepOrder: order, resultsPath: workspace.resultsPath), context: context)
        return exitCode && !(process.isEmpty && gone.isEmpty) ? ExitCode.changes : ExitCode.success
    }

    private func load(_ path: String, _ context: CommandContext, fetchedPolicies: [String: Data]) -> Loaded<Plan> {
        guard path.hasSuffix(".json") else {
            let session = PlanningSession(environment: context.environment, policyPath: policy, fetchedPolicies: fetchedPolicies)
            return session.plan(manifestPath: path, workers: ParallelWork.cores)
        }
        do {
            let data = try FileReading.read(path, limit: 1 << 30)
            return Loaded(value: try Plan.decode(data, file: path), diagnostics: [], sources: SourceStore())
        } catch let error as DiagnosticsError {
            return Loaded(value: nil, diagnostics: error.diagnostics, sources: SourceStore())
        } catch {
            return Loaded(value: nil, diagnostics: [.error("plan.unreadable", "\(error)", hint: "check the plan path")], sources: SourceStore())
        }
    }
}
