import APIClients
import Basics
import Foundation
import Planning

/// Runs planned Assemblies `concurrency` at a time, all sharing one run's pacing, state,
/// deadline and Templates; each entry is announced (`finished`) and handed to `receive` as it ends.
struct AssemblyBatch: Sendable {
    let configuration: RunConfiguration
    let service: any AssemblyService
    let uploads: any UploadService
    let clock: any MonotonicClock
    let pacer: CreationPacer
    let state: RunState
    let deadline: ContinuousClock.Instant
    let templateIDs: [String: String]
    /// When the run began, by this machine's clock.
    let started: Date
    let events: @Sendable (RunEvent) -> Void
    /// The planned Assembly each Assembly of missing steps makes part of, by its id (`RunWork.partOf`).
    var partOf: [String: String] = [:]

    /// Runs `planned`; those in `fresh` get a new Assembly whatever an earlier run left.
    func run(
        _ planned: [PlannedAssembly], fresh: Set<String>, progress: @escaping @Sendable (String, Int64) -> Void,
        receive: (RunResults.Entry) -> Void
    ) async {
        let batch = self
        await forEachConcurrently(planned, width: configuration.concurrency) { planned in
            var run = AssemblyRun(
                planned: planned, configuration: batch.configuration, client: batch.service, uploads: batch.uploads, clock: batch.clock,
                pacer: batch.pacer, state: batch.state, deadline: batch.deadline, templateIDs: batch.templateIDs,
                progress: { progress(planned.id, $0) }, events: batch.events)
            run.started = batch.started
            run.fresh = fresh.contains(planned.id)
            run.partOf = batch.partOf[planned.id]
            return await run.run()
        } receive: { entry in
            events(.finished(entry))
            receive(entry)
        }
    }
}

extension RunWork {
    /// The plan id of the planned Assembly each Assembly of missing steps makes part of, by its
    /// own id (which no plan lists): how `status` names it as the plan and the results do.
    var partOf: [String: String] {
        var owners: [String: String] = [:]
        for part in parts {
            for unit in part.units where unit.id != part.planned.id { owners[unit.id] = part.planned.id }
        }
        return owners
    }
}
