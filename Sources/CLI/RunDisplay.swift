import Basics
import Client
import Foundation

/// Shows a run: a line per Assembly as it ends and a progress line every few seconds (live on a
/// terminal), or one JSON event per line with `--json`; then a summary with failures first.
final class RunDisplay: @unchecked Sendable {
    private let output: Output
    private let json: Bool
    private let githubActions: Bool
    private let interactive: Bool
    private let lock = NSLock()
    private var lastProgress = ContinuousClock.now - .seconds(60)
    private let started = ContinuousClock.now
    private var done = 0
    private var total = 0
    private var inFlight = 0
    private var lastJSONBytes: Int64 = -1
    private var lastJSON = ContinuousClock.now - .seconds(60)

    init(output: Output, json: Bool, githubActions: Bool) {
        self.output = output
        self.json = json
        self.githubActions = githubActions
        self.interactive = isatty(STDERR_FILENO) == 1 && !json
    }

    func show(_ event: RunEvent) {
        if json {
            if case .uploaded(let bytes, let all) = event, !admitJSONProgress(bytes: bytes, total: all) { return }
            return output.out(Self.json(event).serialized() + "\n")
        }
        switch event {
        case .started(let assemblies, let cached, let files, let bytes):
            lock.withLock { total = assemblies; done = cached }
            output.error("run: \(plural(assemblies, "Assembly", "Assemblies")) (\(cached) cached), \(plural(files, "file")), \(ByteSize(bytes: bytes))\n")
        case .created(let job, let planID, let assemblyID, let resumed):
            lock.withLock { inFlight += 1 }
            let clear = interactive ? "\r\u{1B}[K" : ""
            output.error("\(clear)\(resumed ? "resumed" : "created") \(job) \(planID.prefix(12)) as Assembly \(assemblyID)\n")
        case .uploaded(let bytes, let all):
            let now = ContinuousClock.now
            let state: (Int, Int, Int)? = lock.withLock {
                guard now - lastProgress >= (interactive ? .milliseconds(200) : .seconds(5)) else { return nil }
                lastProgress = now
                return (done, total, inFlight)
            }
            guard let (finished, assemblies, running) = state else { return }
            let elapsed = max(0.001, Double((now - started).components.seconds) + Double((now - started).components.attoseconds) / 1e18)
            let rate = Double(bytes) / elapsed
            let eta = rate > 0 && all > bytes ? " ETA \(DurationText.format(.seconds(Int64((Double(all - bytes) / rate).rounded(.up)))))" : ""
            let line = "\(ByteSize(bytes: bytes)) of \(ByteSize(bytes: all)) uploaded (\(ByteSize(bytes: Int64(rate)))/s\(eta)); "
                + "\(finished) of \(assemblies) Assemblies done, \(running) in flight"
            output.error(interactive ? "\r\u{1B}[K" + line : line + "\n")
        case .template(let name, let id, let action):
            output.error("template \(name): \(action.rawValue) (\(id))\n")
        case .finished(let entry):
            let count: (Int, Int) = lock.withLock { done += 1; inFlight = max(0, inFlight - 1); return (done, total) }
            let clear = interactive ? "\r\u{1B}[K" : ""
            let outcome = entry.isCompleted ? "completed, \(plural(entry.results.values.reduce(0) { $0 + $1.count }, "result"))"
                : "FAILED \(entry.status): \(entry.message ?? "")"
            output.error("\(clear)[\(count.0)/\(count.1)] \(entry.job) \(entry.planID.prefix(12)): \(outcome)\n")
            if githubActions, !entry.isCompleted {
                output.error("::error title=Assembly failed::\(entry.job) \(entry.planID): \(entry.status) \(entry.message ?? "")\n")
            }
        }
    }

    /// At most ten `uploaded` events a second, never the same count twice; the last one always.
    private func admitJSONProgress(bytes: Int64, total: Int64) -> Bool {
        let now = ContinuousClock.now
        return lock.withLock {
            guard bytes != lastJSONBytes, bytes == total || now - lastJSON >= .milliseconds(100) else { return false }
            lastJSONBytes = bytes
            lastJSON = now
            return true
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
            let assembly = entry.assemblyID.map { " (Assembly \($0))" } ?? " (no Assembly was created)"
            output.error("failed: \(entry.job) \(entry.planID.prefix(12))\(assembly): \(entry.status): \(entry.message ?? "")\n")
        }
        output.out("Run: \(completed) completed, \(cached) cached, \(failed.count) failed. Results: \(Self.shown(resultsPath))\n")
    }

    /// `path` relative to the current folder when it lies below it.
    static func shown(_ path: String) -> String {
        let folder = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }

    static func json(_ event: RunEvent) -> JSONValue {
        switch event {
        case .started(let assemblies, let cached, let files, let bytes):
            .object(["event": .string("started"), "assemblies": .int(assemblies), "cached": .int(cached), "files": .int(files), "bytes": .int(Int(bytes))])
        case .created(let job, let planID, let assemblyID, let resumed):
            .object(["event": .string(resumed ? "resumed" : "created"), "job": .string(job), "plan_id": .string(planID), "assembly_id": .string(assemblyID)])
        case .uploaded(let bytes, let total):
            .object(["event": .string("uploaded"), "bytes": .int(Int(bytes)), "total": .int(Int(total))])
        case .template(let name, let id, let action):
            .object(["event": .string("template"), "name": .string(name), "id": .string(id), "action": .string(action.rawValue)])
        case .finished(let entry):
            .object(["event": .string("finished"), "job": .string(entry.job), "plan_id": .string(entry.planID),
                     "status": .string(entry.status), "assembly_id": entry.assemblyID.map { .string($0) } ?? .null])
        }
    }
}
