import Basics
import Client
import Foundation
import Planning
import Spec

/// `pipeline replay`: runs Assemblies of the last results again on their service, with the
/// manifest's steps as they are now, and merges what they make into the results.
struct ReplayCommand: Command {
    static let spec = CommandSpec(
        name: "replay",
        summary: "Run the last results' Assemblies again on their service, with the manifest's current steps.",
        discussion: """
        Asks the service to replay each Assembly named (POST .../replay): it runs the uploads it kept again, with the \
        steps, fields and notify_url the manifest now gives its job, without uploading anything. Name the jobs or \
        Assemblies to replay, or give --all for every one; it says which before it asks. Each replay that completes \
        takes its Assembly's place in the results, as a run's would; one that fails leaves the old entry. Only \
        Assemblies that hold all their planned files are replayed (not the embedded engine's, which reads files where \
        they are and keeps none); 'pipeline run' then downloads what changed.
        """,
        arguments: [
            .init(name: "MANIFEST", help: "The manifest that was run."),
            .init(name: "TARGET", help: "Jobs, or Assembly ids (or their first 8+ characters), to replay; or --all.", optional: true, variadic: true),
        ],
        options: [
            .init(name: "all", help: "Replay every Assembly of the last results (instead of naming TARGETs)."),
            .init(name: "endpoint", valueName: "URL", help: "The Assembly API the run used instead of the manifest's."),
            .init(name: "policy", valueName: "FILE", help: "Check against this policy instead of the manifest's 'policy:'."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline replay pipeline.yml thumbnails", "pipeline replay pipeline.yml 3f2a9c1b", "pipeline replay pipeline.yml --all"])

    let arguments: ReplayArguments

    init(_ arguments: ReplayArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = ReplayView(manifestPath: arguments.manifestPath)
        let (project, session) = await ProjectLoader(environment: context.environment, policyPath: arguments.policy, endpointOverride: arguments.endpoint, http: context.http).load(arguments.manifestPath)
        // Replaying is paid work on the service: it is asked for by name, or with --all.
        if arguments.targets.isEmpty, !arguments.all, let manifest = project.value?.manifest {
            throw UsageError(Self.unnamed(manifest, last: Workspace(manifest: manifest).lastResults()), command: Self.spec.name)
        }
        let planned = session.plan(project, workers: ParallelWork.cores, shard: nil)
        context.report(planned.diagnostics, sources: planned.sources)
        guard let plan = planned.value, let manifest = project.value?.manifest else { return ExitCode.failure }
        let workspace = Workspace(manifest: manifest)
        guard let last = workspace.lastResults() else {
            view.noResults(workspace.resultsPath, context: context)
            return ExitCode.failure
        }
        let chosen = last.assemblies.filter { entry in
            entry.assemblyID != nil && (arguments.targets.isEmpty || arguments.targets.contains { target in
                target == entry.job || (target.count >= 8 && (entry.assemblyID?.hasPrefix(target) == true || entry.planID.hasPrefix(target)))
            })
        }
        guard !chosen.isEmpty else {
            view.nothingMatches(arguments.targets, all: arguments.all, context: context)
            return ExitCode.failure
        }
        let prepared: RunSetup
        do {
            prepared = try RunSetup.prepare(manifest: manifest, workspace: workspace, endpoint: Endpoint.of(manifest, override: arguments.endpoint, environment: context.environment), context: context)
        } catch {
            context.report(error.diagnostics, sources: planned.sources)
            return ExitCode.failure
        }
        defer { prepared.engine?.stop() }
        guard prepared.engine == nil else {
            view.embeddedEngine(context: context)
            return ExitCode.failure
        }
        view.replaying(Self.named(chosen), context: context)
        let replay = AssemblyReplay(plan: plan, configuration: prepared.configuration, http: context.http)
        var results = last
        var (replayed, failed, skipped) = (0, 0, 0)
        for entry in chosen {
            let name = "\(entry.job.printable) \(entry.planID.prefix(12))"
            switch await replay.replay(entry) {
            case .skipped(let why):
                skipped += 1
                view.skipped(name, why: why, context: context)
            case .replayed(let made) where made.isCompleted:
                replayed += 1
                // In the old entry's place: the results keep the plan's order.
                let place = results.assemblies.firstIndex { $0.planID == entry.planID } ?? results.assemblies.endIndex
                results.assemblies.insert(made, at: place)
                results.assemblies.removeAll { ($0.planID == entry.planID || $0.planID == made.planID) && $0.assemblyID != made.assemblyID }
                view.replayed(name, as: made, context: context)
            case .replayed(let made):
                failed += 1
                view.failed(name, as: made, context: context)
            }
        }
        if replayed > 0 {
            do { try results.write(to: workspace.resultsPath, below: workspace.directory) } catch {
                view.notWritten(error, context: context)
                return ExitCode.failure
            }
        }
        view.summary(replayed: replayed, failed: failed, skipped: skipped, resultsPath: workspace.resultsPath, context: context)
        return failed == 0 && replayed > 0 ? ExitCode.success : ExitCode.failure
    }

    /// The usage error of a replay that names nothing: the jobs there are to name, with how many
    /// Assemblies each has in the last results (the manifest's jobs when there are none).
    static func unnamed(_ manifest: Manifest, last: RunResults?) -> String {
        var counts: [(job: String, count: Int)] = []
        for entry in (last?.assemblies ?? []) where entry.assemblyID != nil {
            if let index = counts.firstIndex(where: { $0.job == entry.job }) { counts[index].count += 1 } else { counts.append((entry.job, 1)) }
        }
        let jobs = counts.isEmpty
            ? manifest.jobs.map { "'\($0.name.value.printable)'" }
            : counts.map { "'\($0.job.printable)' (\(plural($0.count, "Assembly", "Assemblies")))" }
        return "name the jobs or Assemblies to replay, or --all for every one; "
            + (counts.isEmpty ? "the manifest's jobs: " : "the last results' jobs: ") + jobs.joined(separator: ", ")
    }

    /// What is about to be replayed: how many Assemblies of which jobs, and (up to 10) which.
    static func named(_ chosen: [RunResults.Entry]) -> String {
        var jobs: [(job: String, count: Int)] = []
        for entry in chosen {
            if let index = jobs.firstIndex(where: { $0.job == entry.job }) { jobs[index].count += 1 } else { jobs.append((entry.job, 1)) }
        }
        let shown = chosen.prefix(10).map { "\($0.job.printable) \($0.planID.prefix(12).printable) (Assembly \($0.assemblyID ?? "?"))" }
        let more = chosen.count > shown.count ? ", and \(chosen.count - shown.count) more" : ""
        return "\(plural(chosen.count, "Assembly", "Assemblies")) (\(jobs.map { "\($0.job.printable) \($0.count)" }.joined(separator: ", "))): "
            + shown.joined(separator: ", ") + more
    }
}
