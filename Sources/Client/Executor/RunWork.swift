import Basics
import Foundation
import Planning
import Wire

/// What a run of a plan does, and what it takes from earlier runs. Per planned Assembly: its last
/// entry when it completed and nothing it names is gone (`whole`); else, for a job cached step by
/// step (`StepDigests`), the outcomes known per file and step, and Assemblies only for the steps
/// still missing, files that miss the same steps together, each holding those steps and the
/// steps they use; for any other job, the planned Assembly itself.
public struct RunWork: Sendable {
    /// One planned Assembly's share.
    public struct Part: Sendable {
        /// The planned Assembly; its entry in the results keeps its id.
        public var planned: PlannedAssembly
        /// Its last entry, carried over whole.
        public var whole: RunResults.Entry?
        /// The digest of each of its job's steps, for a job cached step by step.
        public var digests: [String: String]?
        /// Outcomes carried over, by source path (byte for byte) and step name.
        public var cached: [ExactName: [String: StepCache.Hit]] = [:]
        /// The Assemblies that make the rest.
        public var units: [PlannedAssembly] = []

        /// The planned Assembly, run whole (an earlier run's results are not wanted).
        init(running planned: PlannedAssembly) {
            self.planned = planned
            digests = StepDigests.of(planned.instructions)
            units = [planned]
        }

        init(planned: PlannedAssembly, whole: RunResults.Entry? = nil, digests: [String: String]? = nil) {
            self.planned = planned
            self.whole = whole
            self.digests = digests
        }

        /// Whether nothing of it runs.
        public var isCached: Bool { units.isEmpty }
    }

    /// One part per planned Assembly, in plan order.
    public var parts: [Part]

    /// The Assemblies to run, part by part.
    public var units: [PlannedAssembly] { parts.flatMap(\.units) }

    /// Everything runs (`--force`).
    public init(running plan: Plan) {
        parts = plan.assemblies.map(Part.init(running:))
    }

    /// The work of `plan` given the last results (read on the same endpoint) and which of their results are `available`.
    public init(_ plan: Plan, last: RunResults?, cache: StepCache, available: ResultAvailability) {
        let entries = Dictionary((last?.assemblies ?? []).map { ($0.planID, $0) }, uniquingKeysWith: { first, _ in first })
        var digestsByJob: [String: [String: String]?] = [:]
        parts = plan.assemblies.map { planned in
            if var entry = entries[planned.id], entry.isCompleted,
               entry.results.values.joined().allSatisfy(available.holds) {
                entry.cached = true
                return Part(planned: planned, whole: entry)
            }
            if digestsByJob[planned.job] == nil { digestsByJob[planned.job] = StepDigests.of(planned.instructions) }
            guard let digests = digestsByJob[planned.job] ?? nil else { return Part(running: planned) }
            return Self.split(planned, digests: digests, cache: cache)
        }
    }

    /// Reads the last results at `resultsPath` (when they were made on `endpoint`) and works out what runs.
    public static func of(_ plan: Plan, resultsPath: String, endpoint: String, available: ResultAvailability) -> RunWork {
        let wanted = Set(plan.assemblies.map(\.id))
        var cache = StepCache()
        // A million files' results are large: what is kept while the file is read is what can be reused.
        let last = RunResults.load(resultsPath) { entry in
            cache.add(entry, available: available)
            return entry.isCompleted && wanted.contains(entry.planID)
        }
        guard let last, last.endpoint == nil || last.endpoint == endpoint else {
            return RunWork(plan, last: nil, cache: StepCache(), available: available)
        }
        return RunWork(plan, last: last, cache: cache, available: available)
    }

    /// The steps each file misses; files that miss the same steps share an Assembly.
    private static func split(_ planned: PlannedAssembly, digests: [String: String], cache: StepCache) -> Part {
        var part = Part(planned: planned, digests: digests)
        var groups: [[String]: [PlannedFile]] = [:]
        for file in planned.files {
            var missing: [String] = []
            for (step, digest) in digests.sorted(by: { $0.key < $1.key }) {
                if let hit = cache.hit(file.digest, step: digest) { part.cached[ExactName(file.path), default: [:]][step] = hit } else { missing.append(step) }
            }
            if !missing.isEmpty { groups[missing, default: []].append(file) }
        }
        part.units = groups.sorted { ByteOrder.precedes($0.value[0].path, $1.value[0].path) }.map { missing, files in
            let instructions = missing.count == digests.count ? planned.instructions : StepDigests.pruned(planned.instructions, to: Set(missing))
            return PlannedAssembly(job: planned.job, instructions: instructions, files: files)
        }
        return part
    }
}

extension RunWork.Part {
    /// The planned Assembly's entry from its units' entries (by their ids) and what it carries
    /// over, as if one Assembly made every result; nil while none of it is known.
    public func entry(_ done: [String: RunResults.Entry]) -> RunResults.Entry? {
        if let whole { return whole }
        let finished = units.compactMap { done[$0.id] }
        guard let digests else { return finished.first }
        guard !finished.isEmpty || !cached.isEmpty else { return nil }
        var entry = RunResults.Entry(
            job: planned.job, planID: planned.id, assemblyID: nil, assemblyURL: nil, status: AssemblyStatusCode.completed.rawValue, message: nil,
            cached: units.isEmpty, files: planned.files, results: [:])
        // Each source and step's outcome: what an Assembly of this run made replaces what was carried over.
        var outcomes: [ExactName: [String: StepCache.Hit]] = cached
        for (unit, made) in zip(units, units.map { done[$0.id] }) {
            guard let made else {
                (entry.status, entry.message) = (APIErrorCode.interrupted.rawValue, "the run ended before Assembly \(unit.id.prefix(12)) of this plan did; the next run makes it")
                continue
            }
            if entry.isCompleted, !made.isCompleted { (entry.status, entry.message) = (made.status, made.message) }
            if entry.assemblyID == nil || !made.isCompleted { (entry.assemblyID, entry.assemblyURL) = (made.assemblyID, made.assemblyURL) }
            guard made.isCompleted else { continue }
            let steps = (unit.instructions["steps"]?.objectValue ?? [:]).keys
            let gathered = StepCache.outcomes(of: made)
            for file in unit.files {
                for step in steps {
                    outcomes[ExactName(file.path), default: [:]][step] = gathered[StepCache.Source(file.path, step: step)]
                        ?? StepCache.Hit(results: [], leftOut: [], warnings: [])
                }
            }
        }
        for (source, steps) in outcomes {
            let path = source.text
            for (step, outcome) in steps {
                guard let digest = digests[step] else { continue }
                entry.steps[source, default: [:]][step] = digest
                // A result carried over from a file of the same content under another name (byte for byte) follows it.
                entry.results[step, default: []] += outcome.results.map { $0.source.map(ExactName.init(_:)) == source ? $0 : Self.moved($0, to: path) }
                entry.leftOut += outcome.leftOut.map { var item = $0; item.source = path; return item }
                entry.warnings += outcome.warnings.map { var item = $0; item.source = path; return item }
            }
        }
        for step in entry.results.keys { entry.results[step]?.sort { $0.order < $1.order } }
        entry.leftOut.sort { $0.order < $1.order }
        entry.warnings.sort { $0.order < $1.order }
        return entry
    }

    /// A result carried over from a file of the same content at another path, as if made from
    /// `path`: its source, and its name when it was the old source's (`a.png` -> `a.webp`).
    static func moved(_ result: RunResults.ResultFile, to path: String) -> RunResults.ResultFile {
        var moved = result
        (moved.source, moved.localPath) = (path, nil)
        let stem = { (name: String) in ((name as NSString).lastPathComponent as NSString).deletingPathExtension }
        if let old = result.source, ByteOrder.same(stem(result.name), stem(old)) {
            let ext = (result.name as NSString).pathExtension
            moved.name = stem(path) + (ext.isEmpty ? "" : "." + ext)
        }
        return moved
    }
}

extension RunWork {
    /// The planned Assemblies nothing of which runs.
    public var cachedIDs: Set<String> { Set(parts.filter(\.isCached).map(\.planned.id)) }

    /// For a job cached step by step, how many files each of its steps is given by the
    /// Assemblies of the run (0: cached for every file); nil for a job cached per Assembly.
    public func filesPerStep(job: String) -> [String: Int]? {
        let parts = parts.filter { $0.planned.job == job }
        guard let first = parts.first, let digests = StepDigests.of(first.planned.instructions) else { return nil }
        var counts = digests.mapValues { _ in 0 }
        for unit in parts.flatMap(\.units) {
            for step in (unit.instructions["steps"]?.objectValue ?? [:]).keys { counts[step, default: 0] += unit.files.count }
        }
        return counts
    }

    /// The plan of the Assemblies that run, for a usage estimate of what will be counted.
    public func plan(of plan: Plan) -> Plan { Plan(pipeline: plan.pipeline, manifest: plan.manifest, assemblies: units) }
}
