import APIClients
import Basics
import Client
import Crypto
import Foundation
import HTTPClient
import Planning
import Spec

/// `pipeline plan`: what `run` would do, as a summary and optionally as JSON.
struct PlanCommand: Command {
    static let spec = CommandSpec(
        name: "plan",
        summary: "Show which Assemblies a manifest would create, with every file's size and SHA-256.",
        discussion: """
        Expands the inputs, hashes each file, batches files into Assemblies and checks them against the \
        policy. Templates the manifest declares are compared with the endpoint's, field by field ('+' to \
        create, '~' to update, '=' unchanged; '-' not declared, with --prune). The plan is deterministic: planning unchanged input gives byte-identical JSON, so it can be \
        committed, reviewed and compared with 'pipeline diff'.
        """,
        arguments: [.init(name: "MANIFEST", help: "The manifest to plan, such as pipeline.yml.")],
        options: [
            .init(name: "out", valueName: "FILE", help: "Write the plan as JSON to FILE."),
            .init(name: "json", help: "Print the plan as JSON on standard output instead of the summary (as --format json)."),
            .init(name: "max-bytes", valueName: "SIZE", help: "Fail when the run would go over this many bytes in and out (such as 2GiB): a glob over the whole asset folder is caught in review."),
            .init(name: "format", valueName: "FORMAT", help: "text (default), json, or markdown: the plan and what changed since the last run, for a pull request or $GITHUB_STEP_SUMMARY.",
                  choices: ["text", "json", "markdown"]),
            .init(name: "policy", valueName: "FILE", help: "Check against this policy instead of the manifest's 'policy:'."),
            .init(name: "rehash", help: "Hash every file, trusting none of the digests remembered in .pipeline/."),
            .init(name: "shard", valueName: "I/N", help: "Plan only shard I of N, as 'run --shard I/N' runs it (only its files are hashed); 'auto' reads the CI's own variables."),
            .init(name: "endpoint", valueName: "URL", help: "Compare Templates with this Assembly API instead of the manifest's (or 'local')."),
            .init(name: "offline", help: "Compare Templates with the last sync recorded in .pipeline/ instead of asking the endpoint."),
            .init(name: "prune", help: "List the Templates this manifest made and no longer declares, which 'templates sync --prune' deletes."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline plan pipeline.yml", "pipeline plan pipeline.yml --out plan.json", "pipeline plan pipeline.yml --format markdown >> \"$GITHUB_STEP_SUMMARY\""])

    let arguments: PlanArguments
    /// How the plan is shown.
    let view: any PlanView

    init(_ arguments: PlanArguments) {
        self.arguments = arguments
        view = switch arguments.format {
        case .json: JSONPlanView()
        case .markdown: MarkdownPlanView()
        case .text: TextPlanView()
        }
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        if let origin = arguments.shardOrigin { view.shard(origin, context: context) }
        var loader = ProjectLoader(environment: context.environment, policyPath: arguments.policy, endpointOverride: arguments.endpoint, http: context.http)
        loader.rehash = arguments.rehash
        let (project, session) = await loader.load(arguments.manifest)
        let loaded = session.plan(project, workers: ParallelWork.cores, shard: arguments.shard)
        guard let plan = loaded.value else {
            view.failure(loaded.diagnostics, sources: loaded.sources, manifest: arguments.manifest, context: context)
            return ExitCode.failure
        }
        context.report(loaded.diagnostics, sources: loaded.sources)
        let warnings = loaded.diagnostics.filter { $0.severity != .error }.sortedByLocation()
        let workspace = project.value.map { Workspace(manifest: $0.manifest) }
        // The last results, read once, and usage measured only where it is shown or judged (it may
        // run ffprobe on every media file).
        let judged = view.showsContext || arguments.maxBytes != nil
        let lastResults = judged ? workspace?.lastResults() : nil
        // What a run would do: only that is counted.
        let work = judged ? project.value.flatMap { project in
            workspace.map { LastRun.work(plan, manifest: project.manifest, workspace: $0, endpointOverride: arguments.endpoint, environment: context.environment) }
        } : nil
        let usage = judged
            ? UsageReport(work?.plan(of: plan) ?? plan, lastResults: lastResults, resolve: { path in project.value?.manifest.path(path) ?? path }) : nil
        if let maxBytes = arguments.maxBytes, let usage, usage.countedBytes.bytes > maxBytes {
            view.overMaxBytes(usage, maxBytes: maxBytes, plan: plan, context: context)
            view.overBudget(usage, maxBytes: maxBytes, context: context)
            return ExitCode.failure
        }
        if let out = arguments.out {
            if let manifestFile = project.value.map({ $0.manifest.directory + "/" + ($0.manifest.file as NSString).lastPathComponent }),
               let real = RealPath.of(out), real == RealPath.of(manifestFile) {
                view.outIsTheManifest(out, context: context)
                return ExitCode.failure
            }
            var info = stat()
            if stat(out, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                view.outIsAFolder(out, context: context)
                return ExitCode.failure
            }
            do {
                // Whole or not there, but not flushed to disk: a plan lost to a power cut is made again.
                // An unchanged plan is not written again (its file keeps its time, for build tools),
                // nor rendered again while its file is as this manifest's last plan left it.
                let written = workspace.map { WrittenPlans(stateFile: $0.writtenPlansFile, version: PipelineCLI.version) }
                if written?.hold(plan, warnings: warnings, at: out) != true,
                   let info = try AtomicFile.update(out, durable: false, { emit in plan.writeJSON(warnings: warnings, emit) }) {
                    written?.remember(plan, warnings: warnings, at: out, info: info)
                }
            } catch {
                view.outNotWritten(error, out: out, context: context)
                return ExitCode.failure
            }
        }
        var known = PlanContext(work: work, usage: usage, lastResults: lastResults, out: arguments.out)
        if view.showsContext, let manifest = project.value?.manifest, let workspace {
            // Why Assemblies change: this plan next to the one the last run ran.
            known.changes = LastRun.lastPlan(workspace, context: context).map { PlanDiff(old: $0, new: plan) }
            known.stepOrder = Dictionary(uniqueKeysWithValues: manifest.jobs.map { ($0.name.value, $0.steps.map(\.name.value)) })
            known.templates = await templates(manifest, context: context)
        }
        view.show(plan, warnings: warnings, with: known, context: context)
        return ExitCode.success
    }

    /// The manifest's Templates against the endpoint's (every page), or against the last sync the
    /// workspace recorded when `--offline` or the endpoint cannot be asked. Nil when the manifest
    /// declares no Template and none was synced from it, so such a plan never contacts the endpoint.
    private func templates(_ manifest: Manifest, context: CommandContext) async -> String? {
        let declared = TemplateSync.wanted(in: manifest)
        let endpoint = Endpoint.of(manifest, override: arguments.endpoint, environment: context.environment)
        let synced: [String: SyncedTemplate]
        do { synced = try Workspace(manifest: manifest).syncedTemplates(endpoint: endpoint.key) } catch {
            view.syncedUnreadable(error, context: context)
            synced = [:]
        }
        guard !declared.isEmpty || !synced.isEmpty else { return nil }
        var reason = "--offline"
        if !arguments.offline {
            do {
                // The account's other Templates (another manifest's) are not this plan's business, nor a prune's.
                let remote = try await remoteTemplates(manifest, endpoint: endpoint, context: context).filter { declared[$0.name] != nil || synced[$0.name] != nil }
                return TemplateRendering.plan(TemplateComparison.compare(declared, remote: remote), against: endpoint.key, prune: arguments.prune)
            } catch {
                reason = (error as? DiagnosticsError)?.diagnostics.first?.message ?? "\(error)"
                view.templatesNotCompared(with: endpoint.key, reason: reason, context: context)
            }
        }
        let comparisons = TemplateComparison.compare(declared, synced: synced)
        return TemplateRendering.plan(comparisons, against: "the last sync to \(endpoint.key), not the endpoint itself: \(reason)", prune: arguments.prune)
    }

    /// Every Template of the manifest's endpoint, signed as `run` signs (the embedded engine for 'local').
    private func remoteTemplates(_ manifest: Manifest, endpoint: Endpoint, context: CommandContext) async throws -> [RemoteTemplate] {
        let workspace = Workspace(manifest: manifest)
        // An embedded engine that never ran holds no Template; planning does not create one.
        if endpoint == .local, !FileManager.default.fileExists(atPath: workspace.engineDirectory) { return [] }
        // A plan does not wait for a run using the embedded engine: it compares offline instead.
        let prepared = try RunSetup.prepare(manifest: manifest, workspace: workspace, endpoint: endpoint, context: context, waitForEngine: false)
        defer { prepared.engine?.stop() }
        return try await TemplateClient(configuration: prepared.configuration, http: context.http).list()
    }
}
