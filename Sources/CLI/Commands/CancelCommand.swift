import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import Spec
import Wire

/// `pipeline cancel`: cancels the Assemblies of the last run that have not ended.
struct CancelCommand: Command {
    static let spec = CommandSpec(
        name: "cancel",
        summary: "Cancel the in-flight Assemblies of a manifest's last run.",
        discussion: """
        Asks the endpoint the run used (--endpoint, else the manifest's, $TRANSLOADIT_ENDPOINT or the hosted service, \
        as for run) to cancel each Assembly the run state records there that the results do not show ended. Exits 1 \
        when an Assembly could not be canceled (each is named with the reason), or when the last run was on another \
        endpoint. The embedded engine's Assemblies stop with their run: interrupt it, with --cancel-on-interrupt to \
        cancel them.
        """,
        arguments: [.init(name: "MANIFEST", help: "The manifest that was run.")],
        options: [
            .init(name: "endpoint", valueName: "URL", help: "The Assembly API the run used instead of the manifest's."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline cancel pipeline.yml", "pipeline cancel pipeline.yml --endpoint http://127.0.0.1:8787"])

    let arguments: CancelArguments

    /// Cancel requests in flight at once.
    static let parallelRequests = 16

    init(_ arguments: CancelArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = CancelView(manifest: arguments.manifest.printable)
        guard let (workspace, address, key) = LastRun.place(arguments.manifest, endpoint: arguments.endpoint, context: context) else { return ExitCode.failure }
        // The state is read as every other command reads it: never through a link.
        do throws(FileError) { try workspace.refuseLinks() } catch {
            view.failure(error.description, context: context)
            return ExitCode.failure
        }
        let results = workspace.lastResults()
        // What the results (of a run on this endpoint) show completed or canceled is not asked again;
        // any other word (a failure, a run interrupted or timed out) may leave it going there.
        let ended = results.map { $0.endpoint == nil || $0.endpoint == key } == true
            ? Set((results?.assemblies ?? []).filter { $0.isCompleted || $0.status == AssemblyStatusCode.canceled }.map(\.planID)) : []
        let open: [(plan: String, assembly: StartedAssembly)]
        do {
            open = try workspace.startedAssemblies(address: address, endpoint: key)
                .filter { !ended.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        } catch {
            view.failure(error.description, context: context)
            return ExitCode.failure
        }
        if open.isEmpty, let elsewhere = Self.otherEndpoint(of: results, key: key, workspace: workspace) {
            view.ranElsewhere(elsewhere, not: key, context: context)
            return ExitCode.failure
        }
        guard let address else {
            // The embedded engine runs inside its run's process: nothing else can reach it.
            if !open.isEmpty, workspace.runIsGoingOn() == true {
                view.embeddedRunGoingOn(context: context)
                return ExitCode.failure
            }
            view.nothingEmbedded(context: context)
            return ExitCode.success
        }
        guard !open.isEmpty else {
            view.nothingInFlight(on: key, context: context)
            return ExitCode.success
        }
        return await cancel(open, on: key, service: AssemblyClient(http: context.http, endpoint: address), view: view, context: context)
    }

    /// Asks for each of `open` to be canceled; exits 1 when any could not be.
    private func cancel(_ open: [(plan: String, assembly: StartedAssembly)], on key: String, service: any AssemblyService, view: CancelView, context: CommandContext) async -> Int32 {
        let asked = open.map(\.assembly.reference)
        var outcomes: [String: CancelOutcome] = [:]
        await forEachConcurrently(asked, width: Self.parallelRequests) { assembly in
            (assembly.id, await CancelOutcome.of(assembly, service: service))
        } receive: { id, outcome in
            outcomes[id] = outcome
        }
        var failed: [(id: String, why: AssemblyClient.Failure)] = []
        var canceled = 0
        for id in asked.map(\.id) {
            guard let outcome = outcomes[id] else { continue }
            view.show(id, outcome, context: context)
            switch outcome {
            case .canceled: canceled += 1
            case .ended: break
            case .failed(let failure): failed.append((id, failure))
            }
        }
        view.canceled(canceled, context: context)
        guard !failed.isEmpty else { return ExitCode.success }
        view.notCanceled(failed, on: key, context: context)
        return ExitCode.failure
    }

    /// The endpoint the last run used when it is not `key`: as its results name it, or, with
    /// no results (a run cut short), the one endpoint its run state names instead. Only named in a
    /// hint, never asked: run state and results say what is known, not where to connect.
    static func otherEndpoint(of results: RunResults?, key: String, workspace: Workspace) -> String? {
        if let results { return results.endpoint.flatMap { $0 == key ? nil : $0 } }
        let others = Set(((try? workspace.startedAssemblies(address: nil)) ?? [:]).values.compactMap(\.endpoint)).subtracting([key])  // unreadable: no hint
        return others.count == 1 ? others.first : nil
    }
}

/// What became of one request to cancel an Assembly.
enum CancelOutcome: Sendable {
    /// It was canceled (its status now).
    case canceled(String)
    /// It had ended before (completed, or failed with this code).
    case ended(String)
    /// The request was refused or never answered.
    case failed(AssemblyClient.Failure)

    /// Asks `service` to cancel `assembly`.
    static func of(_ assembly: AssemblyReference, service: any AssemblyService) async -> CancelOutcome {
        do throws(AssemblyClient.Failure) {
            let status = try await service.cancel(assembly)
            let ok = status.ok ?? .canceled
            return ok == .completed ? .ended(ok.rawValue) : .canceled(ok.rawValue)
        } catch {
            // An `error` in a status answered 200: the Assembly had failed before the request.
            return error.httpStatus == 200 ? .ended(error.code.rawValue) : .failed(error)
        }
    }
}

/// The Assemblies a run started and has not seen end.
enum InFlight {
    /// Cancels every `started` Assembly whose plan id is not in `except`; returns how many.
    static func cancel(
        _ started: [String: StartedAssembly], except done: Set<String>, service client: any AssemblyService, report: (String) -> Void = { _ in }
    ) async -> Int {
        var canceled = 0
        for (planID, started) in started.sorted(by: { $0.key < $1.key }) where !done.contains(planID) {
            do {
                let status = try await client.cancel(started.reference)
                canceled += 1
                report("\(started.id): \((status.ok ?? .canceled).rawValue)")
            } catch {
                report("\(started.id): not canceled (\(error))")
            }
        }
        return canceled
    }
}
