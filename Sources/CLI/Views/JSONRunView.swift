import Basics
import Client
import Foundation
import Synchronization

/// A run as one JSON event per line on standard output (`--json`), for scripts: every event,
/// progress at most ten times a second, each file left out and each warning, then a summary.
final class JSONRunView: RunView {
    private let output: Output
    private let lastProgress = Mutex<(bytes: Int64, at: ContinuousClock.Instant)>((-1, ContinuousClock.now - .seconds(60)))
    private let lastDownloads = Mutex<ContinuousClock.Instant>(ContinuousClock.now - .seconds(60))

    init(output: Output) {
        self.output = output
    }

    func show(_ event: RunEvent) {
        if case .uploaded(let bytes, let all) = event, !admitProgress(bytes: bytes, total: all) { return }
        if case .phase(.downloading(let done, let total)) = event, done > 0, done < total, !admitDownloads() { return }
        output.out(Self.json(event).serialized() + "\n")
    }

    func tick() {}
    func resized() {}
    func clearLine() {}

    func summary(_ results: RunResults, resultsPath: String) {
        let failed = results.assemblies.filter { !$0.isCompleted && !$0.isPending }.count
        let running = results.assemblies.filter(\.isPending).count
        let cached = results.assemblies.filter(\.cached).count
        let warnings = results.assemblies.flatMap(\.warnings)
        for item in results.assemblies.flatMap(\.leftOut) {
            output.out(JSONValue.object([
                "event": .string("left_out"), "source": item.source.map(JSONValue.string) ?? .null, "step": .string(item.step),
                "error": .string(item.error), "message": .string(item.message),
            ]).serialized() + "\n")
        }
        for item in warnings {
            output.out(JSONValue.object([
                "event": .string("warning"), "source": item.source.map(JSONValue.string) ?? .null, "step": .string(item.step), "message": .string(item.message),
            ]).serialized() + "\n")
        }
        output.out(JSONValue.object([
            "event": .string("summary"), "completed": .int(results.assemblies.count - failed - cached - running), "cached": .int(cached), "failed": .int(failed),
            "left_running": .int(running),
            "left_out": .int(Self.filesLeftOut(results)), "warnings": .int(warnings.count), "results": .string(resultsPath),
        ]).serialized() + "\n")
    }

    /// At most ten `downloading` events a second between the first and the last.
    private func admitDownloads() -> Bool {
        let now = ContinuousClock.now
        return lastDownloads.withLock { last in
            guard now - last >= .milliseconds(100) else { return false }
            last = now
            return true
        }
    }

    /// At most ten `uploaded` events a second, never the same count twice; the last one always.
    private func admitProgress(bytes: Int64, total: Int64) -> Bool {
        let now = ContinuousClock.now
        return lastProgress.withLock { last in
            guard bytes != last.bytes, bytes == total || now - last.at >= .milliseconds(100) else { return false }
            last = (bytes, now)
            return true
        }
    }

    /// The event's JSON object.
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
        case .retrying(let job, let planID, let reason, let wait, let attempt, let attempts):
            .object(["event": .string("retrying"), "job": .string(job), "plan_id": .string(planID), "reason": .string(reason),
                     "wait_ms": .int(Int(wait.inMilliseconds)),
                     "attempt": .int(attempt), "attempts": .int(attempts)])
        case .warning(let message):
            .object(["event": .string("warning"), "message": .string(message)])
        case .pruned(let assemblies, let uploads, let results, let bytes):
            .object(["event": .string("pruned"), "assemblies": .int(assemblies), "uploads": .int(uploads), "results": .int(results), "bytes": .int(Int(bytes))])
        case .holding(let job, let planID, let reason, let wait):
            .object(["event": .string("holding"), "job": .string(job), "plan_id": .string(planID), "reason": .string(reason), "wait_ms": .int(Int(wait.inMilliseconds))])
        case .redoing(let job, let planID, let reason):
            .object(["event": .string("redoing"), "job": .string(job), "plan_id": .string(planID), "reason": .string(reason)])
        case .startingOver(let job, let planID, let reason):
            .object(["event": .string("starting_over"), "job": .string(job), "plan_id": .string(planID), "reason": .string(reason)])
        case .phase(.downloading(let done, let total)):
            .object(["event": .string("phase"), "phase": .string("downloading"), "done": .int(done), "total": .int(total)])
        case .phase(let phase):
            .object(["event": .string("phase"), "phase": .string(phase.name.replacingOccurrences(of: " ", with: "_"))])
        case .finished(let entry):
            .object(["event": .string("finished"), "job": .string(entry.job), "plan_id": .string(entry.planID),
                     "status": .string(entry.status), "assembly_id": entry.assemblyID.map { .string($0) } ?? .null])
        }
    }
}
