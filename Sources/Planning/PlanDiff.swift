import Basics

/// How one plan differs from another, job by job: Assemblies to create, change and remove.
public struct PlanDiff: Sendable {
    /// The differences within one job.
    public struct JobDiff: Sendable {
        /// The job's name.
        public var job: String
        /// Whether the job exists only in the new plan, only in the old, or in both.
        public var presence: Presence
        /// How the job's instructions changed (same for all its Assemblies).
        public var instructionChanges: [ValueChange]
        /// Assemblies only in the new plan.
        public var created: [PlannedAssembly]
        /// Assemblies in both, changed.
        public var changed: [AssemblyChange]
        /// Assemblies only in the old plan.
        public var removed: [PlannedAssembly]
        /// Assemblies identical in both.
        public var unchanged: Int
    }

    /// Whether a job is new, gone or in both plans.
    public enum Presence: String, Sendable { case added, removed, both }

    /// The jobs with any difference or any Assembly, in new-plan order then removed jobs.
    public var jobs: [JobDiff]

    /// Assemblies to create over all jobs.
    public var createCount: Int { jobs.reduce(0) { $0 + $1.created.count } }
    /// Assemblies to change over all jobs.
    public var changeCount: Int { jobs.reduce(0) { $0 + $1.changed.count } }
    /// Assemblies to remove over all jobs.
    public var removeCount: Int { jobs.reduce(0) { $0 + $1.removed.count } }
    /// Assemblies that stay as they are.
    public var unchangedCount: Int { jobs.reduce(0) { $0 + $1.unchanged } }
    /// Whether the plans are the same.
    public var isEmpty: Bool { createCount + changeCount + removeCount == 0 && jobs.allSatisfy(\.instructionChanges.isEmpty) }

    /// Compares `old` with `new`.
    public init(old: Plan, new: Plan) {
        let oldJobs = old.jobs, newJobs = new.jobs
        let names = newJobs + oldJobs.filter { !newJobs.contains($0) }
        jobs = names.map { name in
            let before = old.assemblies.filter { $0.job == name }
            let after = new.assemblies.filter { $0.job == name }
            return Self.diff(job: name, old: before, new: after)
        }
    }

    private static func diff(job: String, old: [PlannedAssembly], new: [PlannedAssembly]) -> JobDiff {
        let presence: Presence = old.isEmpty ? .added : (new.isEmpty ? .removed : .both)
        let instructionChanges = presence == .both
            ? ValueChange.changes(from: old[0].instructions, to: new[0].instructions) : []
        let newIDs = Set(new.map(\.id))
        let oldIDs = Set(old.map(\.id))
        var remainingOld = old.filter { !newIDs.contains($0.id) }
        var remainingNew = new.filter { !oldIDs.contains($0.id) }
        var changed: [AssemblyChange] = []
        // Pair Assemblies holding the same paths first, then those sharing the most paths (byte for byte).
        let paths = { (assembly: PlannedAssembly) in Set(assembly.files.map { ExactName($0.path) }) }
        for candidate in remainingNew {
            let held = paths(candidate)
            guard let match = remainingOld.firstIndex(where: { paths($0) == held }) else { continue }
            changed.append(AssemblyChange(old: remainingOld.remove(at: match), new: candidate))
            remainingNew.removeAll { $0.id == candidate.id }
        }
        for candidate in remainingNew {
            let held = paths(candidate)
            let overlaps = remainingOld.enumerated().map { ($0.offset, held.intersection(paths($0.element)).count) }
            guard let best = overlaps.max(by: { $0.1 < $1.1 }), best.1 > 0 else { continue }
            changed.append(AssemblyChange(old: remainingOld.remove(at: best.0), new: candidate))
            remainingNew.removeAll { $0.id == candidate.id }
        }
        return JobDiff(
            job: job, presence: presence, instructionChanges: instructionChanges, created: remainingNew,
            changed: changed, removed: remainingOld, unchanged: new.count - remainingNew.count - changed.count)
    }
}

/// One Assembly in both plans whose instructions or files differ.
public struct AssemblyChange: Sendable {
    /// The Assembly as it was.
    public var old: PlannedAssembly
    /// The Assembly as it will be.
    public var new: PlannedAssembly
    /// Files only in the new Assembly.
    public var addedFiles: [PlannedFile]
    /// Files only in the old Assembly.
    public var removedFiles: [PlannedFile]
    /// Files in both whose content changed.
    public var changedFiles: [PlannedFile]

    /// Compares two versions of an Assembly.
    public init(old: PlannedAssembly, new: PlannedAssembly) {
        self.old = old
        self.new = new
        let before = Dictionary(old.files.map { (ExactName($0.path), $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.files.map { (ExactName($0.path), $0) }, uniquingKeysWith: { first, _ in first })
        addedFiles = new.files.filter { before[ExactName($0.path)] == nil }
        removedFiles = old.files.filter { after[ExactName($0.path)] == nil }
        changedFiles = new.files.filter { file in before[ExactName(file.path)].map { $0 != file } ?? false }
    }
}

/// A value that differs between two JSON documents, at a dotted path.
public struct ValueChange: Sendable, Equatable {
    /// The path, such as `["steps", "thumb", "width"]`.
    public var path: [String]
    /// The old value; `nil` when added.
    public var old: JSONValue?
    /// The new value; `nil` when removed.
    public var new: JSONValue?

    /// Creates a change.
    public init(path: [String], old: JSONValue?, new: JSONValue?) {
        self.path = path
        self.old = old
        self.new = new
    }

    /// Every leaf-level difference between two values, sorted by path.
    public static func changes(from old: JSONValue?, to new: JSONValue?, at path: [String] = []) -> [ValueChange] {
        if let oldObject = old?.objectValue, let newObject = new?.objectValue {
            let keys = Set(oldObject.keys).union(newObject.keys).sorted()
            return keys.flatMap { changes(from: oldObject[$0], to: newObject[$0], at: path + [$0]) }
        }
        if let old, let new, old.numericallyEquals(new) { return [] }
        return old == new ? [] : [ValueChange(path: path, old: old, new: new)]
    }
}
