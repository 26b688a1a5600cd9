import Spec
import Basics

/// Turns a manifest into a plan: expands globs, hashes files, batches them into Assemblies and
/// checks every Assembly against the policy.
public struct Planner: Sendable {
    /// The policy to check against, if any.
    public var policy: Policy?
    /// How many files are hashed at once.
    public var workers: Int
    /// Digests remembered from earlier plans, if any.
    public var cache: DigestCache?

    /// Creates a planner.
    public init(policy: Policy? = nil, workers: Int = 2, cache: DigestCache? = nil) {
        self.policy = policy
        self.workers = workers
        self.cache = cache
    }

    /// The plan for `manifest`, or `nil` with diagnostics saying why not. Policy findings are
    /// errors located at the manifest values that caused them.
    public func plan(_ manifest: Manifest) -> (plan: Plan?, diagnostics: [Diagnostic]) {
        var walker = GlobWalker(base: manifest.directory)
        var diagnostics: [Diagnostic] = []
        let selections = manifest.jobs.map { job in
            InputSelection.select(job: job, walker: &walker, diagnostics: &diagnostics)
        }
        diagnostics += walker.collectedWarnings.map { .warning($0.id, $0.message) }

        let uniquePaths = selections.count == 1 ? selections[0] : Array(Set(selections.joined())).sorted(by: ByteOrder.precedes)
        let absolutePaths = uniquePaths.map { $0.hasPrefix("/") ? $0 : manifest.directory + "/" + $0 }
        let hashed = FileHasher.digests(paths: absolutePaths, remembered: cache?.candidates(for: uniquePaths), workers: workers)
        cache?.save(keys: uniquePaths, digests: hashed.map { try? $0.get() })
        var planned: [PlannedFile?] = []
        planned.reserveCapacity(uniquePaths.count)
        for (path, result) in zip(uniquePaths, hashed) {
            switch result {
            case .success(let digest): planned.append(PlannedFile(path: path, size: digest.size, sha256: digest.sha256, modified: digest.modified))
            case .failure(let error):
                planned.append(nil)
                diagnostics.append(.error("plan.unreadable-file", error.description, hint: "check the file's permissions"))
            }
        }
        // One job (the common case) lists exactly the unique paths; several look theirs up.
        let byPath = selections.count == 1 ? [:] : Dictionary(zip(uniquePaths, planned), uniquingKeysWith: { first, _ in first })

        var assemblies: [PlannedAssembly] = []
        for (job, paths) in zip(manifest.jobs, selections) {
            let files = selections.count == 1 ? planned.compactMap { $0 } : paths.compactMap { byPath[$0] ?? nil }
            let planned = Self.batches(of: files, job.batch).map {
                PlannedAssembly(job: job.name.value, instructions: job.instructions, files: $0)
            }
            if let policy {
                diagnostics += PolicyReview(policy: policy, manifest: manifest, job: job).findings(for: planned)
            }
            assemblies += planned
        }
        if let policy { diagnostics += PolicyReview(policy: policy, manifest: manifest, job: nil).manifestFindings() }
        guard !diagnostics.containsErrors else { return (nil, diagnostics) }
        return (Plan(pipeline: manifest.name, manifest: manifest.file, assemblies: assemblies), diagnostics)
    }

    /// Files split into Assemblies of `batch` files each, in path order.
    static func batches(of files: [PlannedFile], _ batch: Job.Batch) -> [[PlannedFile]] {
        guard !files.isEmpty else { return [] }
        switch batch {
        case .all:
            return [files]
        case .count(let size):
            return stride(from: 0, to: files.count, by: size).map { Array(files[$0..<min($0 + size, files.count)]) }
        }
    }
}
