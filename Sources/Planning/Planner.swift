import Spec
import Basics

/// Turns a manifest into a plan: expands globs, hashes files, batches them into Assemblies and
/// checks every Assembly against the policy.
public struct Planner: Sendable {
    /// The policy to check against, if any.
    public var policy: Policy?
    /// How many files are hashed at once.
    public var workers: Int

    /// Creates a planner.
    public init(policy: Policy? = nil, workers: Int = 2) {
        self.policy = policy
        self.workers = workers
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
        var digests: [String: FileDigest] = [:]
        for (path, result) in zip(uniquePaths, FileHasher.digests(paths: absolutePaths, workers: workers)) {
            switch result {
            case .success(let digest): digests[path] = digest
            case .failure(let error):
                diagnostics.append(.error("plan.unreadable-file", error.description, hint: "check the file's permissions"))
            }
        }

        var assemblies: [PlannedAssembly] = []
        for (job, paths) in zip(manifest.jobs, selections) {
            let files = paths.compactMap { path in
                digests[path].map { PlannedFile(path: path, size: $0.size, sha256: $0.sha256, modified: $0.modified) }
            }
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
