import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import Spec
import Wire

/// `pipeline status`: the last run's Assemblies, as the results and the service see them.
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        summary: "Show the state of a manifest's last run: completed, failed and in-flight Assemblies.",
        discussion: """
        With --wait, collects the Assemblies an earlier 'pipeline run --no-wait' left running: waits for each to end, \
        then writes the results and downloads as that run would have (creating no Assembly). On another machine it \
        needs the same checkout (the plan's files) and the manifest's .pipeline/ state (a CI cache or artifact).
        """,
        arguments: [.init(name: "MANIFEST", help: "The manifest that was run.")],
        options: [
            .init(name: "json", help: "Print the state as JSON."),
            .init(name: "wait", help: "Wait for the Assemblies 'run --no-wait' left running, and write their results."),
            .init(name: "timeout", valueName: "DURATION", help: "With --wait: give up after this long (default 8h)."),
            .init(name: "endpoint", valueName: "URL", help: "The Assembly API the run used instead of the manifest's."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline status pipeline.yml", "pipeline run pipeline.yml --no-wait && pipeline status pipeline.yml --wait"])

    let arguments: StatusArguments
    private var manifest: String { arguments.manifest }
    private var json: Bool { arguments.json }
    private var endpoint: String? { arguments.endpoint }
    /// How the run's Assemblies are shown.
    private var view: any StatusView { json ? JSONStatusView() : HumanStatusView(manifest: manifest) }
    /// `--wait`: the collecting run.
    let collect: RunCommand?

    /// Status requests in flight at once.
    static let parallelQueries = 16

    init(_ arguments: StatusArguments) {
        self.arguments = arguments
        collect = arguments.collect.map(RunCommand.init)
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        guard let (workspace, address, key) = LastRun.place(manifest, endpoint: endpoint, context: context) else { return ExitCode.failure }
        // The state is read as every other command reads it: never through a link.
        do throws(FileError) { try workspace.refuseLinks() } catch {
            view.failure(error.description, context: context)
            return ExitCode.failure
        }
        if let collect {
            // Only what a run left on a server that outlives it: the embedded engine stops with its run.
            // A run state that cannot be read leaves nothing to collect, which is said below.
            let running = ((try? workspace.startedAssemblies(address: address, endpoint: key)) ?? [:]).values.filter { $0.endpoint != Endpoint.local.key }  // see above
            guard address != nil, !running.isEmpty else {
                view.nothingToCollect(manifest, on: address, context: context)
                return ExitCode.failure
            }
            return await collect.runOnce(context)
        }
        // The Assemblies the runs on this endpoint started (another endpoint's are its own).
        let started: [String: StartedAssembly]
        do { started = try workspace.startedAssemblies(address: address, endpoint: key) } catch {
            view.failure(error.description, context: context)
            return ExitCode.failure
        }
        // The service is asked about the Assemblies not known to be completed, a few at a time,
        // so a run of thousands of Assemblies answers in seconds; the embedded engine's are read
        // from what it stored (it is gone with its run), so a missing results file or a killed
        // run does not leave them all "STARTED".
        let jobs = Dictionary((workspace.lastPlan()?.assemblies ?? []).map { ($0.id, $0.job) }, uniquingKeysWith: { first, _ in first })
        var rows = StatusRow.rows(
            started, results: workspace.lastResults(), endpoint: key, jobs: jobs, stopped: workspace.runIsGoingOn() == false,
            stored: { EngineDataLayout(workspace.engineDirectory).storedState(of: $0)?.word })
        // The embedded engine is gone with its run: what the run stored is the truth.
        let asked: [(index: Int, url: String, recorded: String?)] = rows.indices.compactMap { index in
            guard rows[index].status != AssemblyStatusCode.completed, rows[index].assembly.endpoint != Endpoint.local.key,
                  let url = rows[index].assembly.url, !url.hasPrefix("file://") else { return nil }
            return (index, url, rows[index].recorded)
        }
        let client = AssemblyClient(http: context.http, endpoint: "")
        await forEachConcurrently(asked, width: Self.parallelQueries) { query in
            do throws(AssemblyClient.Failure) {
                let state = try await client.status(at: query.url)
                return (query.index, state.word)
            } catch {
                // An answer the service refused to give is not the Assembly's state: keep the recorded one.
                return (query.index, query.recorded ?? error.code.rawValue)
            }
        } receive: { index, status in
            if let status { rows[index].status = status }
        }
        view.show(rows, workspace: workspace, context: context)
        return ExitCode.success
    }
}
