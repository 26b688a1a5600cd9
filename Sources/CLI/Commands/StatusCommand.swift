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

    let manifest: String
    let json: Bool
    let endpoint: String?
    /// `--wait`: the collecting run.
    let collect: RunCommand?

    /// Status requests in flight at once.
    static let parallelQueries = 16

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifest = arguments.positionals[0]
        json = arguments.flag("json")
        endpoint = arguments.value("endpoint")
        guard arguments.flag("wait") else {
            guard arguments.value("timeout") == nil else { throw UsageError("--timeout goes with --wait", command: Self.spec.name) }
            collect = nil
            return
        }
        collect = try RunCommand.collecting(manifest, endpoint: endpoint, timeout: arguments.value("timeout"), json: json)
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        guard let (workspace, address) = LastRun.workspaceAndAddress(manifest, endpoint: endpoint, context: context) else { return ExitCode.failure }
        // The state is read as every other command reads it: never through a link.
        do throws(FileError) { try workspace.refuseLinks() } catch {
            context.output.failure(error.description)
            return ExitCode.failure
        }
        if let collect {
            // Only what a run left on a server that outlives it: the embedded engine stops with its run.
            let running = ((try? workspace.startedAssemblies(address: address)) ?? [:]).values.filter { $0.endpoint != Endpoint.local.key }
            guard address != nil, !running.isEmpty else {
                context.output.failure(
                    "nothing to collect: no run of \(manifest.printable) left Assemblies running on \(address ?? "the embedded engine")",
                    hint: "'pipeline run \(manifest.printable) --no-wait' against 'pipeline serve' or the hosted service leaves them; 'pipeline run' waits for them itself")
                return ExitCode.failure
            }
            return await collect.runOnce(context)
        }
        let entries = workspace.lastResults()?.assemblies ?? []
        let finished = Dictionary(entries.map { ($0.planID, $0) }, uniquingKeysWith: { first, _ in first })
        let client = AssemblyClient(http: context.http, endpoint: "")
        let started: [(key: String, value: StartedAssembly)]
        do { started = try workspace.startedAssemblies(address: address).sorted(by: { $0.key < $1.key }) } catch {
            context.output.failure(error.description)
            return ExitCode.failure
        }
        // The service is asked about the Assemblies not known to be completed, a few at a time,
        // so a run of thousands of Assemblies answers in seconds; the embedded engine's are read
        // from what it stored (it is gone with its run), so a missing results file or a killed
        // run does not leave them all "STARTED".
        var statuses = started.map { entry in
            finished[entry.key]?.status
                ?? (entry.value.endpoint == Endpoint.local.key ? Self.storedStatus(of: entry.value.id, in: workspace) : nil)
                ?? "STARTED"
        }
        let jobs = Dictionary((workspace.lastPlan()?.assemblies ?? []).map { ($0.id, $0.job) }, uniquingKeysWith: { first, _ in first })
        // An embedded-engine Assembly stored in flight, with no run of this manifest going on, was
        // stopped with its run (killed, or the machine went down): it is not running anywhere.
        let stopped = workspace.runIsGoingOn() == false
        let interrupted = started.indices.map { index in
            stopped && started[index].value.endpoint == Endpoint.local.key && finished[started[index].key] == nil
                && [AssemblyStatusCode.uploading, AssemblyStatusCode.executing, AssemblyStatusCode.replaying].contains(statuses[index])
        }
        // The embedded engine is gone with its run: what the run stored is the truth.
        let asked: [(index: Int, url: String, stored: String?)] = started.indices.compactMap { index in
            guard finished[started[index].key]?.isCompleted != true, started[index].value.endpoint != Endpoint.local.key,
                  let url = started[index].value.url, !url.hasPrefix("file://") else { return nil }
            return (index, url, finished[started[index].key]?.status)
        }
        await forEachConcurrently(asked, width: Self.parallelQueries) { query in
            do throws(AssemblyClient.Failure) {
                let state = try await client.status(query.url)
                return (query.index, state.error ?? state.ok)
            } catch {
                // An answer the service refused to give is not the Assembly's state: keep the stored one.
                return (query.index, query.stored ?? error.code.rawValue)
            }
        } receive: { index, status in
            if let status { statuses[index] = status }
        }
        // By job, then plan id.
        let jobOf = started.map { finished[$0.key]?.job ?? jobs[$0.key] ?? $0.value.job }
        let order = started.indices.sorted { (jobOf[$0] ?? "", started[$0].key) < (jobOf[$1] ?? "", started[$1].key) }
        let rows: [JSONValue] = order.map { index in
            let entry = started[index]
            return .object(["plan_id": .string(entry.key), "assembly_id": .string(entry.value.id), "status": .string(statuses[index]),
                            "job": jobOf[index].map { .string($0) } ?? .null,
                            "interrupted": .bool(interrupted[index])])
        }
        let stoppedRows = order.map { interrupted[$0] }
        if json {
            context.output.out(JSONValue.object(["results": .string(workspace.resultsPath), "assemblies": .array(rows)]).serialized(pretty: true) + "\n")
        } else if rows.isEmpty {
            context.output.out("No run recorded for \(manifest) (no run state in \(workspace.stateDirectory)).\n")
        } else {
            let width = max(3, rows.map { ($0["job"]?.stringValue ?? "-").count }.max() ?? 3)
            func padded(_ text: String) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
            context.output.out("\(padded("JOB"))  PLAN          ASSEMBLY                          STATUS\n")
            for (row, interrupted) in zip(rows, stoppedRows) {
                let status = (row["status"]?.stringValue ?? "") + (interrupted ? " (interrupted)" : "")
                let line = "\(padded(row["job"]?.stringValue ?? "-"))  \(row["plan_id"]?.stringValue?.prefix(12) ?? "")  \(row["assembly_id"]?.stringValue ?? "")  \(status)"
                context.output.out(line.printable + "\n")
            }
            context.output.out(Self.counts(rows.map { ($0["job"]?.stringValue ?? "-", $0["status"]?.stringValue ?? "") }) + "\n")
            let written = FileManager.default.fileExists(atPath: workspace.resultsPath)
            context.output.out("Results: \(workspace.resultsPath)\(written ? "" : " (not written)")\n")
            let stoppedCount = stoppedRows.filter { $0 }.count
            if stoppedCount > 0 {
                let (their, them) = stoppedCount == 1 ? ("its", "it") : ("their", "them")
                context.output.out("\(plural(stoppedCount, "Assembly", "Assemblies")) stopped with \(their) run, unfinished; 'pipeline run \(manifest.printable)' resumes \(them).\n")
            }
        }
        return ExitCode.success
    }

    /// `3 Assemblies (thumbs 2, videos 1): 2 completed, 1 failed, 0 in flight`, from each row's job and status.
    static func counts(_ rows: [(job: String, status: String)]) -> String {
        var jobs: [(String, Int)] = []
        for (job, _) in rows {
            if let index = jobs.firstIndex(where: { $0.0 == job }) { jobs[index].1 += 1 } else { jobs.append((job, 1)) }
        }
        let busy = [AssemblyStatusCode.uploading, AssemblyStatusCode.executing, AssemblyStatusCode.replaying, "STARTED"]
        let completed = rows.filter { $0.status == AssemblyStatusCode.completed }.count
        let inFlight = rows.filter { busy.contains($0.status) }.count
        let perJob = jobs.map { "\($0.0.printable) \($0.1)" }.joined(separator: ", ")
        return "\(plural(rows.count, "Assembly", "Assemblies")) (\(perJob)): \(completed) completed, \(rows.count - completed - inFlight) failed, \(inFlight) in flight"
    }

    /// What the embedded engine stored of Assembly `id` in this workspace: its `ok` or `error`
    /// code, when the record is a regular file (read without waiting on anything else, its uploads
    /// passed over) and the code looks like one (`IMAGE_RESIZE_ERROR`).
    static func storedStatus(of id: String, in workspace: Workspace) -> String? {
        guard AssemblyID.isValid(id), let record = JSONObjectStream(path: workspace.engineDirectory + "/assemblies/" + id + ".json") else { return nil }
        var members: [String: JSONValue] = [:]
        guard (try? record.read(streaming: "uploads", element: { _ in }, member: { members[$0] = $1 })) != nil else { return nil }  // damaged: nothing known
        let code = members["error"]?.stringValue ?? members["ok"]?.stringValue ?? ""
        let isCode = (1...64).contains(code.utf8.count) && code.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        return isCode ? code : nil
    }
}
