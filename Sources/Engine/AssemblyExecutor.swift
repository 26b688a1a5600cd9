import Wire
import Foundation
import Synchronization
import Basics

/// Runs Assemblies: the steps in dependency order, each step's files in parallel on all cores,
/// results stored under the data folder.
final class AssemblyExecutor: Sendable {
    let store: AssemblyStore
    let resultsDirectory: String
    let limits: RobotLimits
    private let queue = DispatchQueue(label: "pipeline.engine.assemblies", attributes: .concurrent)

    init(store: AssemblyStore, resultsDirectory: String, limits: RobotLimits = RobotLimits()) {
        self.store = store
        self.resultsDirectory = resultsDirectory
        self.limits = limits
    }

    /// The file on disk behind a result URL path `/results/{assembly}/{file}/{name}`, if any.
    func localPath(assembly: String, file: String) -> String? {
        guard let record = store.get(assembly) else { return nil }
        return (record.uploads + record.results.values.flatMap { $0 }).first { $0.id == file }?.path
    }

    /// Starts executing an Assembly in the background.
    func start(_ id: String) {
        store.update(id) { record in
            record.ok = AssemblyStatusCode.executing
            record.message = "The Assembly is executing."
        }
        queue.async { self.run(id) }
    }

    /// Resumes Assemblies that were executing when the engine stopped, and starts those whose
    /// last upload arrived just before it stopped (their start may not have been written).
    func resumeInterrupted() {
        for record in store.all where record.error == nil {
            let uploaded = record.ok == AssemblyStatusCode.uploading && record.expectedTusUploads > 0
                && record.finishedTusUploads >= record.expectedTusUploads
            if record.ok == AssemblyStatusCode.executing || uploaded { start(record.id) }
        }
    }

    private func run(_ id: String) {
        guard let record = store.get(id), let graph = StepGraph(record.steps) else {
            fail(id, "ASSEMBLY_INVALID_STEPS", "the steps cannot be run")
            return
        }
        let folder = resultsDirectory + "/" + id
        // A failed or canceled Assembly reports no results: what its steps wrote only fills the disk.
        func discard() { try? FileManager.default.removeItem(atPath: folder) }
        let outputs = Mutex<[String: [AssemblyFile]]>([":original": record.uploads])
        let ignored = Mutex<[JSONValue]>([])
        let store = store, limits = limits
        let exports = (resultsDirectory as NSString).deletingLastPathComponent + "/exports"
        // Steps that do not use each other run at once (each also spreads its files over the cores).
        for wave in graph.waves {
            if store.get(id)?.isTerminal == true { return discard() }
            let failures = Mutex<[Int: RobotError]>([:])
            DispatchQueue.concurrentPerform(iterations: wave.count) { index in
                let step = wave[index]
                let inputs = outputs.withLock { produced in step.uses.flatMap { produced[$0] ?? [] } }
                let context = RobotContext(
                    step: step, folder: folder, fields: record.fields, assembly: id, exports: exports, limits: limits,
                    isCanceled: { store.get(id)?.isTerminal ?? true },
                    ignore: { error in
                        ignored.withLock {
                            $0.append(JSONValue.object(["step": .string(step.name), "robot": .string(step.robot), "error": .string(error.code), "message": .string(error.message)]))
                        }
                    })
                do throws(RobotError) {
                    let produced = try Robots.run(context, on: inputs)
                    outputs.withLock { $0[step.name] = produced }
                } catch {
                    failures.withLock { $0[index] = error }
                }
            }
            // The first failing step in the Assembly's order names the failure.
            if let (index, error) = failures.withLock({ $0 }).min(by: { $0.key < $1.key }) {
                // Removed before the failure shows: a client that sees it finds no partial files.
                discard()
                return fail(id, error.code, "step '\(wave[index].name)' (\(wave[index].robot)): \(error.message)")
            }
        }
        let produced = outputs.withLock { $0 }
        let results = Dictionary(uniqueKeysWithValues: graph.ordered.filter(graph.isResult).map { ($0.name, produced[$0.name] ?? []) })
        store.update(id) { record in
            guard !record.isTerminal else { return }
            record.results = results
            record.ignoredErrors = ignored.withLock { $0 }
            record.ok = AssemblyStatusCode.completed
            record.message = "The Assembly was successfully completed."
            record.finished = Date()
        }
    }

    private func fail(_ id: String, _ code: String, _ message: String) {
        store.update(id) { record in
            // Canceled meanwhile: the robot stopped because of it, which is no failure.
            guard !record.isTerminal else { return }
            record.error = code
            record.message = message
            record.finished = Date()
        }
    }
}
