import Basics
import Client
import Foundation
import Spec
import Wire

/// One line of `pipeline status`: an Assembly a run started on the endpoint asked about, under
/// the plan id of the planned Assembly it made (or made part of: an Assembly of the steps some
/// files missed has an id of its own, which no plan lists), as the plan and the results name it.
struct StatusRow {
    /// The planned Assembly's id.
    var plan: String
    /// The Assembly.
    var assembly: StartedAssembly
    /// Its job, when known.
    var job: String?
    /// Its status: recorded, stored by the embedded engine, or the service's answer.
    var status: String
    /// What the results record of it (nil: nothing).
    var recorded: String?
    /// Stored in flight by an embedded engine whose run is gone.
    var stopped = false

    /// Cut before it ended: stopped with its run, or recorded as interrupted.
    var isInterrupted: Bool { stopped || RunResults.Attempt.interrupted.contains(status) }

    /// What `entry` (the last results' for the row's plan) says of the Assembly `id`: the status
    /// of a failed or cut attempt that made it; when the results were made on the row's endpoint
    /// (`own`), the entry's own when it completed (its results are all there), or when it names
    /// this Assembly or none; else nothing.
    static func recorded(_ entry: RunResults.Entry?, assembly id: String, own: Bool) -> String? {
        guard let entry else { return nil }
        if let attempt = entry.attempt, attempt.assemblyID == id { return attempt.status }
        guard own else { return nil }
        return entry.isCompleted || entry.assemblyID == nil || entry.assemblyID == id ? entry.status : nil
    }

    /// The rows of the Assemblies `started` on `endpoint` (by the plan id they were started for),
    /// from the last `results`, the `jobs` of the plan that ran and, for the embedded engine's,
    /// what it `stored`; `stopped` when no run of the manifest is going on.
    static func rows(
        _ started: [String: StartedAssembly], results: RunResults?, endpoint: String, jobs: [String: String], stopped: Bool, stored: (String) -> String?
    ) -> [StatusRow] {
        let finished = Dictionary((results?.assemblies ?? []).map { ($0.planID, $0) }, uniquingKeysWith: { first, _ in first })
        // Results made on another endpoint say nothing of this one's Assemblies (but the attempts there).
        let own = results?.endpoint == nil || results?.endpoint == endpoint
        let busy = AssemblyStatusCode.busy.map(\.rawValue)
        return started.map { key, assembly in
            let plan = assembly.partOf ?? key
            let local = assembly.endpoint == Endpoint.local.key
            let recorded = recorded(finished[plan], assembly: assembly.id, own: own)
            var row = StatusRow(
                plan: plan, assembly: assembly, job: finished[plan]?.job ?? jobs[plan] ?? jobs[key] ?? assembly.job,
                status: recorded ?? (local ? stored(assembly.id) : nil) ?? "STARTED", recorded: recorded)
            // An embedded-engine Assembly stored in flight, with no run of this manifest going on,
            // was stopped with its run (killed, or the machine went down): it is not running anywhere.
            row.stopped = stopped && local && recorded == nil && busy.contains(row.status)
            return row
        }.sorted { ($0.job ?? "", $0.plan, $0.assembly.id) < ($1.job ?? "", $1.plan, $1.assembly.id) }
    }

    /// `3 Assemblies (thumbs 2, videos 1): 1 completed, 1 failed, 1 interrupted, 0 in flight`
    /// (interrupted only when some were).
    static func counts(_ rows: [StatusRow]) -> String {
        var jobs: [(String, Int)] = []
        for row in rows {
            let job = row.job ?? "-"
            if let index = jobs.firstIndex(where: { $0.0 == job }) { jobs[index].1 += 1 } else { jobs.append((job, 1)) }
        }
        let busy = AssemblyStatusCode.busy.map(\.rawValue) + ["STARTED"]
        let completed = rows.filter { $0.status == AssemblyStatusCode.completed }.count
        let interrupted = rows.filter(\.isInterrupted).count
        let inFlight = rows.filter { !$0.isInterrupted && busy.contains($0.status) }.count
        let perJob = jobs.map { "\($0.0.printable) \($0.1)" }.joined(separator: ", ")
        let cut = interrupted > 0 ? ", \(interrupted) interrupted" : ""
        return "\(plural(rows.count, "Assembly", "Assemblies")) (\(perJob)): \(completed) completed, \(rows.count - completed - interrupted - inFlight) failed\(cut), \(inFlight) in flight"
    }
}
