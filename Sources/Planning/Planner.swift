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
    /// How many files are hashed between two visits to the digest cache.
    var pieceSize = 8_192

    /// Creates a planner.
    public init(policy: Policy? = nil, workers: Int = 2, cache: DigestCache? = nil, shard: (index: Int, count: Int)? = nil) {
        self.policy = policy
        self.workers = workers
        self.cache = cache
        self.shard = shard
    }

    /// The plan for `manifest`, or `nil` with diagnostics saying why not. Policy findings are
    /// errors located at the manifest values that caused them. Files are hashed, and the digest
    /// cache read and written, a piece at a time in path order; with one job its Assemblies are
    /// made as their files arrive, so what is held per file is its path and its planned record.
    public func plan(_ manifest: Manifest) -> (plan: Plan?, diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        let selections = Self.select(manifest, diagnostics: &diagnostics)

        // Every Assembly as its job and its files' paths: batching needs nothing but the sorted paths.
        var batches: [(job: Int, paths: ArraySlice<String>)] = []
        for (index, (job, paths)) in zip(manifest.jobs, selections).enumerated() {
            batches += Self.batches(of: paths, job.batch).map { (index, paths[$0]) }
        }
        if let shard { batches = Array(batches[Plan.shardRange(shard.index, of: shard.count, total: batches.count)]) }

        let update = cache?.update(keepingOthers: shard != nil)
        let assemblies = manifest.jobs.count == 1
            ? assembliesOfOneJob(manifest, paths: selections[0], batches: batches, update: update, diagnostics: &diagnostics)
            : assembliesOfJobs(manifest, batches: batches, update: update, diagnostics: &diagnostics)
        update?.finish()
        if let update, update.needsWriting, let problem = update.unwritable, let cache {
            diagnostics.append(.warning(
                "plan.digest-cache", "the digest cache '\(cache.file)' cannot be written: \(problem); every plan hashes every file again",
                hint: "remove it, or make the manifest's .pipeline folder a writable folder"))
        }

        for job in manifest.jobs {
            diagnostics += InputChecks.findings(job: job, files: assemblies.lazy.filter { $0.job == job.name.value }.flatMap(\.files))
        }
        if let policy {
            let findings = manifest.jobs.flatMap { job in
                PolicyReview(policy: policy, manifest: manifest, job: job).findings(for: assemblies.filter { $0.job == job.name.value })
            }
            diagnostics += SharedValueFindings.coalesced(findings) + PolicyReview(policy: policy, manifest: manifest, job: nil).manifestFindings()
        }
        guard !diagnostics.containsErrors else { return (nil, diagnostics) }
        return (Plan(pipeline: manifest.name, manifest: manifest.file, assemblies: assemblies), diagnostics)
    }

    /// Each job's files: sorted, unique paths relative to the manifest's folder. The walker and
    /// its folder listings are gone once this returns.
    private static func select(_ manifest: Manifest, diagnostics: inout [Diagnostic]) -> [[String]] {
        var walker = GlobWalker(base: manifest.directory)
        let root = inputsRoot(manifest, diagnostics: &diagnostics)
        walker.confinementName = manifest.inputsRoot.map { "the inputs root '\($0.value)'" } ?? "the manifest's folder"
        let selections = manifest.jobs.map { job in
            walker.confinement = job.allowOutside ? nil : root
            return InputSelection.select(job: job, walker: &walker, diagnostics: &diagnostics)
        }
        diagnostics += walker.collectedWarnings.map { .warning($0.id, $0.message) }
        return selections
    }

    /// The real folder inputs must stay inside; the manifest's folder when `inputs_root` cannot be resolved (after an error).
    private static func inputsRoot(_ manifest: Manifest, diagnostics: inout [Diagnostic]) -> String {
        if let root = RealPath.of(manifest.inputsFolder) { return root }
        diagnostics.append(.error(
            "plan.inputs-root", "'inputs_root' names '\(manifest.inputsRoot?.value ?? manifest.inputsFolder)', which is not a folder",
            at: manifest.inputsRoot?.location, hint: "write a folder relative to the manifest, such as '..'"))
        return RealPath.of(manifest.directory) ?? manifest.directory
    }

    /// The folder hashing confines every opened file to: the inputs root, unless a job may reach outside it.
    static func hashingConfinement(_ manifest: Manifest) -> String? {
        manifest.jobs.contains(where: \.allowOutside) ? nil : RealPath.of(manifest.inputsFolder)
    }

    /// One job: its batches are consecutive slices of its sorted paths, so each Assembly is made
    /// as soon as its last file is hashed, and no other record of the files is kept.
    private func assembliesOfOneJob(
        _ manifest: Manifest, paths: [String], batches: [(job: Int, paths: ArraySlice<String>)], update: DigestCacheUpdate?,
        diagnostics: inout [Diagnostic]
    ) -> [PlannedAssembly] {
        guard let first = batches.first, let last = batches.last, let job = manifest.jobs.first else { return [] }
        var assemblies: [PlannedAssembly] = []
        assemblies.reserveCapacity(batches.count)
        var next = 0
        var current: [PlannedFile] = []
        hashPieces(
            paths[first.paths.startIndex..<last.paths.endIndex], base: manifest.directory, confinement: Self.hashingConfinement(manifest), update: update, diagnostics: &diagnostics) { position, file in
            if let file { current.append(file) }
            guard position + 1 == batches[next].paths.endIndex else { return }
            assemblies.append(PlannedAssembly(job: job.name.value, instructions: job.instructions, files: current))
            next += 1
            current = []
            if next < batches.count { current.reserveCapacity(batches[next].paths.count) }
        }
        return assemblies
    }

    /// Several jobs, which may share files: every file is hashed once, in path order, into an
    /// index of all of them, from which each job's Assemblies are made.
    private func assembliesOfJobs(
        _ manifest: Manifest, batches: [(job: Int, paths: ArraySlice<String>)], update: DigestCacheUpdate?, diagnostics: inout [Diagnostic]
    ) -> [PlannedAssembly] {
        let wanted = InputSelection.sortedUnique(batches.flatMap(\.paths))
        var files: [PlannedFile?] = []
        files.reserveCapacity(wanted.count)
        hashPieces(wanted[...], base: manifest.directory, confinement: Self.hashingConfinement(manifest), update: update, diagnostics: &diagnostics) { _, file in files.append(file) }
        // `wanted` is sorted: a file is found by bisection, without a table of every path.
        func file(_ path: String) -> PlannedFile? {
            var low = 0, high = wanted.count
            while low < high {
                let middle = (low + high) / 2
                if ByteOrder.precedes(wanted[middle], path) { low = middle + 1 } else { high = middle }
            }
            return low < wanted.count && ByteOrder.same(wanted[low], path) ? files[low] : nil
        }
        return batches.map { batch in
            let job = manifest.jobs[batch.job]
            return PlannedAssembly(job: job.name.value, instructions: job.instructions, files: batch.paths.compactMap(file))
        }
    }

    /// Hashes `paths` (sorted) a piece at a time, reading and writing the digest cache alongside,
    /// and hands each file to `consume` in order with its index in `paths` (nil when unreadable,
    /// with an error added to `diagnostics`). While the workers hash (or only stat) one piece,
    /// this thread looks up the next piece in the cache and records the one before.
    private func hashPieces(
        _ paths: ArraySlice<String>, base: String, confinement: String?, update: DigestCacheUpdate?, diagnostics: inout [Diagnostic],
        _ consume: (Int, PlannedFile?) -> Void
    ) {
        var inFlight: PieceHashing?
        var start = paths.startIndex
        while start < paths.endIndex || inFlight != nil {
            var next: PieceHashing?
            if start < paths.endIndex {
                let keys = Array(paths[start..<min(start + pieceSize, paths.endIndex)])
                let lookup = update?.remembered(for: keys)
                next = PieceHashing(
                    start: start, keys: keys, piece: lookup?.piece, base: base, remembered: lookup?.trusted, confinement: confinement, workers: workers)
                start += keys.count
            }
            if let done = inFlight {
                var digests: [FileDigest?] = []
                digests.reserveCapacity(done.keys.count)
                for (offset, (path, result)) in zip(done.keys, done.results()).enumerated() {
                    switch result {
                    case .success(let digest):
                        digests.append(digest)
                        consume(done.start + offset, PlannedFile(
                            path: path, size: digest.size, digest: digest.digest, modified: digest.modified,
                            status: digest.identity.map { ($0.inode, $0.changed) }, inspection: digest.inspection))
                    case .failure(let error):
                        digests.append(nil)
                        consume(done.start + offset, nil)
                        diagnostics.append(error.reason == nil
                            ? .error("plan.unreadable-file", error.description, hint: "check the file's permissions")
                            : .error("plan.link-outside", error.description, hint: "inputs must really be files inside the project; widen it with 'inputs_root: ..' if that is intended"))
                    }
                }
                if let piece = done.piece { update?.record(done.keys, digests, piece) }
            }
            inFlight = next
        }
    }

    /// The index ranges of sorted `paths` that make up Assemblies of at most `batch` files each
    /// (see `BatchBoundaries`).
    static func batches(of paths: [String], _ batch: Job.Batch) -> [Range<Int>] {
        guard !paths.isEmpty else { return [] }
        switch batch {
        case .all: return [0..<paths.count]
        case .count(let size): return BatchBoundaries.ranges(of: paths, size: size)
        }
    }
}
