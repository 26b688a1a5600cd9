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
    /// Plan only shard `index` (1-based) of `count`: its share is decided from the sorted paths
    /// and the jobs' batching, before any file is read, so each shard hashes only its own files.
    public var shard: (index: Int, count: Int)?

    /// Creates a planner.
    public init(policy: Policy? = nil, workers: Int = 2, cache: DigestCache? = nil, shard: (index: Int, count: Int)? = nil) {
        self.policy = policy
        self.workers = workers
        self.cache = cache
        self.shard = shard
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

        // Every Assembly as its job and its files' paths: batching needs nothing but the sorted paths.
        var batches: [(job: Int, paths: ArraySlice<String>)] = []
        for (index, (job, paths)) in zip(manifest.jobs, selections).enumerated() {
            batches += Self.batches(of: paths.count, job.batch).map { (index, paths[$0]) }
        }
        if let shard { batches = Array(batches[Plan.shardRange(shard.index, of: shard.count, total: batches.count)]) }

        // One job (the common case): its batches are consecutive slices of its sorted, unique paths.
        let single = manifest.jobs.count == 1
        let base = batches.first?.paths.startIndex ?? 0
        let wanted = single ? Array(selections[0][base..<(batches.last?.paths.endIndex ?? base)]) : InputSelection.sortedUnique(batches.flatMap(\.paths))
        var digests: [FileDigest?] = []
        digests.reserveCapacity(wanted.count)
        for result in FileHasher.digests(paths: wanted, base: manifest.directory, remembered: cache?.candidates(for: wanted), workers: workers) {
            switch result {
            case .success(let digest): digests.append(digest)
            case .failure(let error):
                digests.append(nil)
                diagnostics.append(.error("plan.unreadable-file", error.description, hint: "check the file's permissions"))
            }
        }
        cache?.save(keys: wanted, digests: digests, keepingOthers: shard != nil)
        let files = zip(wanted, digests).map { path, digest in
            digest.map { PlannedFile(path: path, size: $0.size, sha256: $0.sha256, modified: $0.modified) }
        }
        // `wanted` is sorted: a file is found by bisection, without a table of every path.
        func file(_ path: String) -> PlannedFile? {
            var low = 0, high = wanted.count
            while low < high {
                let middle = (low + high) / 2
                if ByteOrder.precedes(wanted[middle], path) { low = middle + 1 } else { high = middle }
            }
            return low < wanted.count && ByteOrder.same(wanted[low], path) ? files[low] : nil
        }

        var assemblies: [PlannedAssembly] = []
        for (index, job) in manifest.jobs.enumerated() {
            let planned = batches.filter { $0.job == index }.map { batch in
                let chosen = single ? files[(batch.paths.startIndex - base)..<(batch.paths.endIndex - base)].compactMap { $0 } : batch.paths.compactMap(file)
                return PlannedAssembly(job: job.name.value, instructions: job.instructions, files: chosen)
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

    /// The index ranges of `count` sorted files that make up Assemblies of `batch` files each.
    static func batches(of count: Int, _ batch: Job.Batch) -> [Range<Int>] {
        guard count > 0 else { return [] }
        switch batch {
        case .all:
            return [0..<count]
        case .count(let size):
            return stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
        }
    }
}
