import Executor
import Foundation
import PipelineCore

/// Shows a run: a line per Assembly as it ends and a progress line every few seconds (live on a
/// terminal), or one JSON event per line with `--json`; then a summary with failures first.
final class RunDisplay: @unchecked Sendable {
    private let output: Output
    private let json: Bool
    private let githubActions: Bool
    private let interactive: Bool
    private let lock = NSLock()
    private var lastProgress = ContinuousClock.now - .seconds(60)
    private var done = 0
    private var total = 0

    init(output: Output, json: Bool, githubActions: Bool) {
        self.output = output
        self.json = json
        self.githubActions = githubActions
        self.interactive = isatty(STDERR_FILENO) == 1 && !json
    }

    func show(_ event: RunEvent) {
        if json { return output.out(Self.json(event).serialized() + "\n") }
        switch event {
        case .started(let assemblies, let cached, let files, let bytes):
            lock.withLock { total = assemblies; done = cached }
            output.error("run: \(plural(assemblies, "Assembly", "Assemblies")) (\(cached) cached), \(plural(files, "file")), \(ByteSize(bytes: bytes))\n")
        case .created(let job, let planID, let assemblyID, let resumed):
            output.error("\(resumed ? "resumed" : "created") \(job) \(planID.prefix(12)) as Assembly \(assemblyID)\n")
        case .uploaded(let bytes, let all):
            let now = ContinuousClock.now
            let due: Bool = lock.withLock {
                guard now - lastProgress >= (interactive ? .milliseconds(200) : .seconds(5)) else { return false }
                lastProgress = now
                return true
            }
            guard due else { return }
            let line = "uploading: \(ByteSize(bytes: bytes)) of \(ByteSize(bytes: all))"
            output.error(interactive ? "\r\u{1B}[K" + line : line + "\n")
        case .finished(let entry):
            let count: (Int, Int) = lock.withLock { done += 1; return (done, total) }
            let clear = interactive ? "\r\u{1B}[K" : ""
            let outcome = entry.isCompleted ? "completed, \(plural(entry.results.values.reduce(0) { $0 + $1.count }, "result"))"
                : "FAILED \(entry.status): \(entry.message ?? "")"
            output.error("\(clear)[\(count.0)/\(count.1)] \(entry.job) \(entry.planID.prefix(12)): \(outcome)\n")
            if githubActions, !entry.isCompleted {
                output.error("::error title=Assembly failed::\(entry.job) \(entry.planID): \(entry.status) \(entry.message ?? "")\n")
            }
        }
    }

    func summary(_ results: RunResults, resultsPath: String) {
        let failed = results.assemblies.filter { !$0.isCompleted }
        let cached = results.assemblies.filter(\.cached).count
        let completed = results.assemblies.count - failed.count - cached
        if json {
            output.out(JSONValue.object([
                "event": .string("summary"), "completed": .int(completed), "cached": .int(cached), "failed": .int(failed.count),
                "results": .string(resultsPath),
            ]).serialized() + "\n")
            return
        }
        if githubActions {
            var jobs: [String] = []
            for entry in results.assemblies where !jobs.contains(entry.job) { jobs.append(entry.job) }
            for job in jobs {
                output.error("::group::job \(job)\n")
                for entry in results.assemblies where entry.job == job {
                    output.error("\(entry.planID.prefix(12)) \(entry.assemblyID ?? "-") \(entry.cached ? "cached" : entry.status)\n")
                }
                output.error("::endgroup::\n")
            }
        }
        for entry in failed {
            output.error("failed: \(entry.job) \(entry.planID.prefix(12)) (Assembly \(entry.assemblyID ?? "none")): \(entry.status): \(entry.message ?? "")\n")
        }
        output.out("Run: \(completed) completed, \(cached) cached, \(failed.count) failed. Results: \(resultsPath)\n")
    }

    static func json(_ event: RunEvent) -> JSONValue {
        switch event {
        case .started(let assemblies, let cached, let files, let bytes):
            .object(["event": .string("started"), "assemblies": .int(assemblies), "cached": .int(cached), "files": .int(files), "bytes": .int(Int(bytes))])
        case .created(let job, let planID, let assemblyID, let resumed):
            .object(["event": .string(resumed ? "resumed" : "created"), "job": .string(job), "plan_id": .string(planID), "assembly_id": .string(assemblyID)])
        case .uploaded(let bytes, let total):
            .object(["event": .string("uploaded"), "bytes": .int(Int(bytes)), "total": .int(Int(total))])
        case .finished(let entry):
            .object(["event": .string("finished"), "job": .string(entry.job), "plan_id": .string(entry.planID),
                     "status": .string(entry.status), "assembly_id": entry.assemblyID.map { .string($0) } ?? .null])
        }
    }
}
