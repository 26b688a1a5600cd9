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
        arguments: [.init(name: "MANIFEST", help: "The manifest that was run.")],
        options: [CommandSpec.caCertOption],
        examples: ["pipeline cancel pipeline.yml"])

    let manifest: String

    init(_ arguments: ParsedArguments) {
        manifest = arguments.positionals[0]
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        guard let (workspace, address) = LastRun.workspaceAndAddress(manifest, context: context) else { return ExitCode.failure }
        let done = Set((workspace.lastResults()?.assemblies ?? []).filter(\.isCompleted).map(\.planID))
        let started: [String: StartedAssembly]
        do { started = try workspace.startedAssemblies(address: address) } catch {
            context.output.failure(error.description)
            return ExitCode.failure
        }
        let canceled = await InFlight.cancel(started, except: done, service: AssemblyClient(http: context.http, endpoint: "")) { line in
            context.output.out(line + "\n")
        }
        context.output.out("Canceled \(plural(canceled, "Assembly", "Assemblies")).\n")
        return ExitCode.success
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
            guard let url = started.url else { continue }
            do {
                let status = try await client.cancel(url)
                canceled += 1
                report("\(started.id): \(status.ok ?? AssemblyStatusCode.canceled)")
            } catch {
                report("\(started.id): not canceled (\(error))")
            }
        }
        return canceled
    }
}
