import APIClients
import Basics
import Client
import Engine
import Foundation
import HTTPClient
import HTTPServer
import Planning
import Spec

/// `pipeline run`: plans the manifest, runs every Assembly and writes the results JSON.
struct RunCommand: Command {
    static let spec = CommandSpec(
        name: "run",
        summary: "Run a manifest: create the Assemblies, upload the files, wait, and write the results JSON.",
        discussion: """
        Plans first (the same checks as 'pipeline plan'), then runs each planned Assembly: signed params, \
        tus uploads that resume where they stopped, polling until the Assembly ends. Assemblies whose \
        files and instructions match a completed entry of the previous results are not run again \
        (--force redoes them). State lives in .pipeline/ beside the manifest, so the same command after \
        an interruption continues without creating duplicate Assemblies, from the bytes the servers kept. \
        With 'endpoint: local' the engine of 'pipeline serve' runs inside this command.
        """,
        arguments: [.init(name: "MANIFEST", help: "The manifest to run, such as pipeline.yml.")],
        options: [
            .init(name: "results", valueName: "FILE", help: "Where to write the results (default: the manifest's 'results:', else results.json beside it)."),
            .init(name: "endpoint", valueName: "URL", help: "The Assembly API to use instead of the manifest's (or 'local')."),
            .init(name: "concurrency", valueName: "N", help: "Assemblies in flight at once (default 4)."),
            .init(name: "parallel", valueName: "N", help: "Files uploaded at once per Assembly (default 4)."),
            .init(name: "timeout", valueName: "DURATION", help: "Give up after this long (default 8h)."),
            .init(name: "chunk-size", valueName: "SIZE", help: "The most bytes per upload request, for proxies that limit bodies (default: the manifest's upload.chunk_size, else automatic)."),
            .init(name: "download", valueName: "DIR", help: "Download every job's result files into DIR/<step>/, each at its source's path below the input pattern's fixed folders, with the result's extension (an archive keeps its own name)."),
            .init(name: "force", help: "Run every Assembly, even those completed in the previous results."),
            .init(name: "policy", valueName: "FILE", help: "Check against this policy instead of the manifest's 'policy:'."),
            .init(name: "plan", valueName: "FILE", help: "Run exactly this reviewed plan; refuse if any of its files changed."),
            .init(name: "rehash", help: "Hash every file, trusting none of the digests remembered in .pipeline/."),
            .init(name: "quiet", help: "Print only failures and the summary (no progress line, no line per Assembly).", short: "q"),
            .init(name: "verbose", help: "Print a line for every Assembly as it starts and ends (by default only failures are listed).", short: "v"),
            .init(name: "shard", valueName: "I/N", help: "Run shard I of N (a contiguous share of the Assemblies, planned alone), for CI matrices; 'auto' (or 'auto/N') reads the CI's own variables (GitLab, CircleCI, Buildkite, Kubernetes)."),
            .init(name: "max-assemblies-per-minute", valueName: "N", help: "Create at most N Assemblies a minute (default \(Int(RunTuning.accountBudget)) against the hosted service, divided among N shards; elsewhere none until the server signals a limit)."),
            .init(name: "cancel-on-interrupt", help: "On Ctrl-C, cancel the Assemblies in flight instead of leaving them to finish."),
            .init(name: "no-wait", help: "Leave the Assemblies running once their files are up, and exit; 'pipeline status MANIFEST --wait' (or another run) collects them. Not with endpoint: local."),
            .init(name: "json", help: "Print one JSON event per line instead of progress and a summary."),
            .init(name: "watch", help: "After the run, watch the manifest, the policy and the input folders, and run again (incrementally) when they change; Ctrl-C stops."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline run pipeline.yml", "pipeline run pipeline.yml --results build/results.json --concurrency 8", "pipeline run pipeline.yml --watch"])

    let arguments: RunArguments
    /// The manifest to run.
    var manifestPath: String { arguments.manifestPath }

    init(_ arguments: RunArguments) {
        self.arguments = arguments
    }

    /// How the command speaks: its messages, and the run's view.
    func view(_ context: CommandContext) -> RunCommandView {
        RunCommandView(output: context.output, arguments: arguments, environment: context.environment)
    }

    /// The reviewed plan, if every one of its files is unchanged; otherwise the differences are reported.
    private func verifiedPlan(_ path: String, view: RunCommandView, context: CommandContext) -> Plan? {
        var reviewed: Plan
        do {
            reviewed = try Plan.decode(try FileReading.read(path, limit: 1 << 30), file: path)
        } catch let error as DiagnosticsError {
            context.report(error.diagnostics, sources: SourceStore())
            return nil
        } catch {
            view.failure(error)
            return nil
        }
        // A shard runs, and so checks, only its share of the reviewed plan.
        if let shard = arguments.tuning.shard { reviewed = reviewed.shard(shard.index, of: shard.count) }
        let directory = FolderPath.of(manifestPath)
        let differences = PlanVerification.differences(reviewed, baseDirectory: directory.isEmpty ? "." : directory)
        guard differences.isEmpty else {
            view.planChanged(path, differences: differences)
            return nil
        }
        return reviewed
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        if let origin = arguments.shardOrigin { view(context).shard(origin) }
        guard arguments.watch else { return await runOnce(context) }
        return await RunWatcher(command: self).watch(context)
    }

    /// One run (also each of `--watch`'s).
    func runOnce(_ context: CommandContext) async -> Int32 {
        let view = self.view(context)
        let signals = SignalCenter.waiter()
        // The manifest and its policy are read once, for planning and for the run.
        var loader = ProjectLoader(environment: context.environment, policyPath: arguments.policy, endpointOverride: arguments.endpoint, http: context.http)
        loader.rehash = arguments.rehash
        let (project, session) = await loader.load(manifestPath)
        // A shard plans (and hashes) only its own share.
        let shard = arguments.tuning.shard
        let planned = session.plan(project, workers: ParallelWork.cores, shard: shard)
        context.report(planned.diagnostics, sources: planned.sources)
        guard var plan = planned.value else { return ExitCode.failure }
        if let reviewed = arguments.reviewedPlan {
            guard let chosen = verifiedPlan(reviewed, view: view, context: context) else { return ExitCode.failure }
            plan = chosen
        }
        guard let manifest = project.value?.manifest else { return ExitCode.failure }
        if arguments.noWait, project.value?.policy?.requiresNotifyURLWithoutWaiting == true {
            let silent = Set(plan.assemblies.filter { $0.instructions["notify_url"]?.stringValue == nil }.map(\.job)).sorted()
            guard silent.isEmpty else {
                view.notifyURLMissing(jobs: silent)
                return ExitCode.failure
            }
        }
        // One run per run state, taken before anything starts (the embedded engine included).
        let workspace = Workspace(manifest: manifest, resultsOverride: arguments.results)
        let lock: RunLock
        do { lock = try workspace.lockRun(shard: shard) } catch {
            view.failure(error)
            return ExitCode.failure
        }
        defer { withExtendedLifetime(lock) {} }
        // Before anything starts: a run that cannot sign its Smart CDN URLs does not begin.
        let smartCDN: (jobs: [String: SmartCDNSpec], key: String, secret: String)?
        do { smartCDN = try RunSetup.smartCDN(manifest, environment: context.environment) } catch {
            context.report(error.diagnostics, sources: planned.sources)
            return ExitCode.failure
        }
        let prepared: RunSetup
        do {
            prepared = try RunSetup.prepare(
                manifest: manifest, workspace: workspace, endpoint: Endpoint.of(manifest, override: arguments.endpoint, environment: context.environment), download: arguments.download, tuning: arguments.tuning,
                context: context, interrupted: { signals.hasReceived })
        } catch {
            // Ctrl-C while waiting for another command's embedded engine: nothing started.
            if signals.hasReceived { return signals.exitStatus }
            context.report(error.diagnostics, sources: planned.sources)
            return ExitCode.failure
        }
        defer { prepared.engine?.stop() }
        // After the wait for the embedded engine, so a run that waited for another one sees what it wrote.
        let downloadFolders = Set(prepared.configuration.downloads.values.map(\.folder)).sorted()
        for (folder, other) in workspace.manifestsSharing(downloadFolders: downloadFolders) {
            view.sharedDownloadFolder(folder, with: other)
        }
        if let conflict = workspace.resultsConflict(shard: shard.map { "\($0.index)/\($0.count)" }, downloads: downloadFolders) {
            context.report([conflict], sources: SourceStore())
            return ExitCode.failure
        }
        var configuration = prepared.configuration
        (configuration.waits, configuration.createsAssemblies, configuration.smartCDN) = (!arguments.noWait, !arguments.collectOnly, smartCDN)
        configuration.usualEndpointKey = Endpoint.of(manifest, override: nil, environment: context.environment).key
        if arguments.noWait, prepared.engine != nil {
            view.noWaitWithEmbeddedEngine()
            return ExitCode.failure
        }
        let display = view.runView(handsOver: prepared.engine != nil)
        SignalCenter.onResize { display.resized() }
        let ticker = Task {
            while !Task.isCancelled {
                _ = await Task.pause(for: .seconds(1))  // cancelled at the end of the run: nothing to report
                display.tick()
            }
        }
        defer { ticker.cancel() }
        let runner = Runner(plan: plan, configuration: configuration, http: context.http)
        // After Ctrl-C, transfers cut short are no news: one line says the run was interrupted.
        let work = Task { try await runner.run { event in if !signals.hasReceived { display.show(event) } } }
        let interrupt = Task {
            _ = await signals.next()
            work.cancel()
        }
        defer { interrupt.cancel() }
        do {
            // The command's own task canceled (a caller in this process) cuts the run as Ctrl-C does.
            let results = try await withTaskCancellationHandler { try await work.value } onCancel: { work.cancel() }
            if work.isCancelled { display.clearLine(); return await interrupted(results, configuration: configuration, view: view, context: context, status: signals.exitStatus) }
            display.summary(results, resultsPath: configuration.resultsPath)
            let left = results.assemblies.filter(\.isPending).count
            if left > 0 {
                view.leftRunning(left)
            }
            return results.assemblies.allSatisfy { $0.isCompleted || (arguments.noWait && $0.isPending) } ? ExitCode.success : ExitCode.failure
        } catch {
            if work.isCancelled { display.clearLine(); return await interrupted(nil, configuration: configuration, view: view, context: context, status: signals.exitStatus) }
            view.failure(error)
            return ExitCode.failure
        }
    }

    /// After Ctrl-C: state is saved; with --cancel-on-interrupt the unfinished Assemblies are canceled.
    private func interrupted(_ results: RunResults?, configuration: RunConfiguration, view: RunCommandView, context: CommandContext, status: Int32) async -> Int32 {
        if arguments.cancelOnInterrupt {
            let done = Set((results?.assemblies ?? []).filter(\.isCompleted).map(\.planID))
            do {
                // The embedded engine is still in this process: its services cancel its Assemblies, by id.
                let embedded = configuration.services?.assemblies
                let started = try configuration.workspace.startedAssemblies(
                    in: [configuration.stateFile], address: embedded == nil ? configuration.endpoint : nil, endpoint: configuration.endpointKey)
                let service = embedded ?? AssemblyClient(http: context.http, endpoint: configuration.endpoint)
                let canceled = await InFlight.cancel(started, except: done, service: service)
                view.interrupted(canceled: canceled)
            } catch {
                view.interrupted(cancelFailed: error)
            }
        } else {
            let again = ResumeNote.text(results, force: configuration.force, embedded: configuration.services != nil)
            view.interrupted(savedIn: configuration.workspace.manifestStateDirectory, again: again)
        }
        return status
    }
}
