import Basics
import Foundation
import Planning

/// What a run writes to its results file: all it made when every planned Assembly completed (as a
/// clean run would); otherwise never less than the last good state. A failed or cut attempt is
/// recorded beside the completed entry it would have replaced (`RunResults.Attempt`), the last
/// completed entries of sources still unsettled stay, and after a run that failed on an endpoint
/// other than the last results' (and not the manifest's own), the results stay that endpoint's.
/// The last results are read once, when first needed: every later write keeps what they held.
struct GoodResults {
    /// The results file.
    let path: String
    /// The key of the endpoint a run without `--endpoint` uses, when known.
    let usualEndpoint: String?
    private var loaded = false
    private var last: RunResults?
    /// What was settled last: the results written.
    private(set) var written: Settled?

    init(path: String, usualEndpoint: String?) {
        (self.path, self.usualEndpoint) = (path, usualEndpoint)
    }

    /// What to write, and the plan ids whose entry is this run's own completed one (whose results
    /// it downloads); `note` says why this run's completed work is not in the file, when it is not.
    struct Settled {
        var results: RunResults
        var own: Set<String>
        var note: String?
    }

    /// The results to write for the entries this run has so far (`made`, of the plan's `planned` Assemblies).
    mutating func settled(_ made: RunResults, planned: [PlannedAssembly]) -> Settled {
        let settled = settling(made, planned: planned)
        written = settled
        return settled
    }

    private mutating func settling(_ made: RunResults, planned: [PlannedAssembly]) -> Settled {
        let completed = Set(made.assemblies.filter(\.isCompleted).map(\.planID))
        let clean = Settled(results: made, own: completed)
        if completed.count == planned.count, made.assemblies.count == planned.count { return clean }
        if !loaded { (last, loaded) = (RunResults.load(path), true) }
        guard let last, last.assemblies.contains(where: { $0.isCompleted || $0.isPending }) else { return clean }
        if last.endpoint == nil || last.endpoint == made.endpoint { return Self.keeping(last, made: made, planned: planned) }
        guard let usualEndpoint, made.endpoint != usualEndpoint else { return clean }
        return Self.staying(last, made: made, completed: completed.count)
    }

    /// On the same endpoint: each planned Assembly's entry as this run made it, but a completed
    /// entry of the last results where this run's failed or is not known yet (the failure beside
    /// it), and the last completed entries no longer planned whose sources this run left unsettled.
    private static func keeping(_ last: RunResults, made: RunResults, planned: [PlannedAssembly]) -> Settled {
        let good = Dictionary(last.assemblies.filter(\.isCompleted).map { ($0.planID, $0) }, uniquingKeysWith: { first, _ in first })
        let ran = Dictionary(made.assemblies.map { ($0.planID, $0) }, uniquingKeysWith: { first, _ in first })
        var entries: [RunResults.Entry] = []
        var own: Set<String> = []
        // Sources by their exact bytes: names that differ only by Unicode normalization are two.
        var unsettled: Set<[UInt8]> = []
        for assembly in planned {
            let entry = ran[assembly.id]
            if let entry, entry.isCompleted || entry.isPending {
                entries.append(entry)
                if entry.isCompleted { own.insert(entry.planID) }
                continue
            }
            unsettled.formUnion(assembly.files.map { Array($0.path.utf8) })
            if var kept = good[assembly.id] {
                if let entry { kept.attempt = RunResults.Attempt(entry, endpoint: made.endpoint) }
                entries.append(kept)
            } else if let entry {
                entries.append(entry)
            }
        }
        // A source is shown by one completed entry at most: an older one stays only for sources
        // no completed entry of this run holds.
        var settled = Set(entries.filter(\.isCompleted).flatMap { $0.files.map { Array($0.path.utf8) } })
        let plannedIDs = Set(planned.map(\.id))
        for older in last.assemblies where older.isCompleted && !plannedIDs.contains(older.planID) {
            let paths = older.files.map { Array($0.path.utf8) }
            guard paths.contains(where: unsettled.contains), !paths.contains(where: settled.contains) else { continue }
            entries.append(older)
            settled.formUnion(paths)
        }
        return Settled(results: RunResults(pipeline: made.pipeline, manifest: made.manifest, shard: made.shard, endpoint: made.endpoint, assemblies: entries), own: own)
    }

    /// After a failure on another endpoint than the last results' (and not the manifest's own): the
    /// last results as they were, each failure beside its planned Assembly's entry (or its own entry
    /// where they have none); what completed on this endpoint is resumed by its next run there.
    private static func staying(_ last: RunResults, made: RunResults, completed: Int) -> Settled {
        var results = last
        let index = Dictionary(last.assemblies.indices.map { (last.assemblies[$0].planID, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in made.assemblies where !entry.isCompleted {
            let attempt = RunResults.Attempt(entry, endpoint: made.endpoint)
            if let place = index[entry.planID] { results.assemblies[place].attempt = attempt } else { results.assemblies.append(entry) }
        }
        let endpoint = last.endpoint ?? ""
        let note = "the results stay those made on \(endpoint.printable), as this run on \((made.endpoint ?? "").printable) did not complete every Assembly"
            + (completed > 0 ? "; the \(completed) it completed there are found again by the next run there" : "")
        return Settled(results: results, own: [], note: note)
    }
}
