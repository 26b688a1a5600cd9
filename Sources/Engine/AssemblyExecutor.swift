import Wire
import Foundation
import Synchronization
import Basics

/// Runs Assemblies: the steps in dependency order, each step's files in parallel on all cores,
/// results stored under the data folder.
final class AssemblyExecutor: Sendable {
    let store: any AssemblyRecords
    let resultsDirectory: String
    let limits: RobotLimits
    /// The named credentials storage steps may use.
    let storage: StorageCredentials
    /// Storage steps' inline secrets, in memory only, until their Assembly ends.
    let secrets = InlineSecrets()
    /// Assemblies whose steps run at once; each spreads its files over every core, so more would
    /// only make each of them slower (and a burst of creations would start a thread each).
    let maxRunning: Int
    /// The threads Assemblies run on, one per running Assembly (`maxRunning` at most).
    let threads: BlockingPool
    let waiting = Mutex<(running: Int, queued: [String])>((0, []))
    /// The engine stops: robots stop (their tools are ended) and no queued Assembly starts.
    let stopping = Atomic<Bool>(false)
    /// Assemblies whose steps are running, for a stop to wait out.
    let inFlight = Drain()
    /// Who runs which Assembly, when several engines share the state; nil: this engine runs what it starts.
    let queue: (any RunQueue)?
    /// Where inputs come from and results go, when several engines share the files.
    let files: (any SharedFiles)?
    /// The claims this engine holds, renewed while their steps run; a lost one cancels its run.
    let claims = Mutex<[String: (claim: RunClaim, lost: Bool)]>([:])

    init(store: any AssemblyRecords, resultsDirectory: String, limits: RobotLimits = RobotLimits(), storage: StorageCredentials = .none,
         maxRunning: Int = max(2, ParallelWork.cores), queue: (any RunQueue)? = nil, files: (any SharedFiles)? = nil) {
        self.store = store
        self.queue = queue
        self.files = files
        self.storage = storage
        self.resultsDirectory = resultsDirectory
        self.limits = limits
        self.maxRunning = maxRunning
        threads = BlockingPool("assembly", threads: maxRunning)
    }

    /// Runs an executing Assembly's steps in the background, after those started before it
    /// when `maxRunning` are running already.
    func execute(_ id: String) {
        if let queue { return executeHere(id, queue) }
        let starts = waiting.withLock { state in
            guard state.running < maxRunning else { state.queued.append(id); return false }
            state.running += 1
            return true
        }
        if starts { threads.submit { self.runThenNext(id) } }
    }

    /// Stops every robot (ending the tools they run) and waits, `longest` at most, for the
    /// Assemblies to leave their steps; they stay executing, to be resumed (or, read in place,
    /// ended) by the next engine. A tool left running would outlive the process.
    @available(*, noasync, message: "waits for the robots to stop")
    func stop(waitingAtMost longest: Duration) {
        stopping.store(true, ordering: .relaxed)
        _ = inFlight.wait(atMost: longest)
    }

    /// Assemblies running, and waiting for a turn.
    var load: (running: Int, queued: Int) {
        waiting.withLock { ($0.running, $0.queued.count) }
    }

    private func runThenNext(_ id: String) {
        inFlight.enter()
        defer { inFlight.leave() }
        var current: String? = id
        while let id = current {
            run(id, claim: nil)
            current = waiting.withLock { state in
                guard !state.queued.isEmpty, !stopping.load(ordering: .relaxed) else { state.running -= 1; return nil }
                return state.queued.removeFirst()
            }
        }
    }

    /// Resumes Assemblies that were executing when the engine stopped, and starts those whose
    /// last upload arrived just before it stopped (their start may not have been written). Ended
    /// ones are left as they are (not written again at every start).
    func resumeInterrupted() {
        for record in store.live.filter({ !$0.isTerminal }).sorted(by: { ($0.created, $0.id) < ($1.created, $1.id) }) {
            var action = AssemblyAction.none
            store.update(record.id) { record in
                action = record.apply(record.phase == .uploading && record.expectedTusUploads > 0
                    && record.finishedTusUploads >= record.expectedTusUploads ? .uploadsComplete : .restarted)
            }
            if action == .execute { execute(record.id) }
        }
    }

    /// The Assembly with the facts of its tus uploads read (they were stored with their type
    /// only, so the upload's last PATCH was answered at once), several files at once, and kept.
    private func describeUploads(_ record: AssemblyRecord, claim: RunClaim?) -> AssemblyRecord {
        let pending = record.uploads.indices.filter { record.uploads[$0].meta.isEmpty && FileFacts.hasFacts(record.uploads[$0].mime) }
        guard !pending.isEmpty else { return record }
        let uploads = record.uploads
        let facts = ParallelWork.map(count: pending.count, placeholder: [String: JSONValue]()) {
            { index in
                let file = uploads[pending[index]]
                return FileFacts.meta(of: file.path, name: file.name, type: file.mime)
            }
        }
        // Kept in the store, and given back on the record as it came (its uploads where the steps read them).
        var described = record
        for (index, meta) in zip(pending, facts) { described.uploads[index].meta = meta }
        store.update(record.id, claim: claim) { record in
            for (index, meta) in zip(pending, facts) where index < record.uploads.count && record.uploads[index].id == uploads[index].id {
                record.uploads[index].meta = meta
            }
        }
        return described
    }

    func run(_ id: String, claim: RunClaim?) {
        let folder = resultsDirectory + "/" + id
        // Inline secrets serve one run of the steps; a resumed Assembly's steps say they are gone.
        // Shared engines keep no copies of what a run read and wrote: the bucket has them.
        var inputs: [AssemblyFile] = []
        defer {
            secrets.forget(id)
            files?.dropLocalCopies(assembly: id, inputs: inputs)
        }
        // A failed or canceled Assembly reports no results: what its steps wrote only fills the disk.
        func discard() { FileSystem.cleanUp(folder) }
        func end(_ event: AssemblyEvent) {
            var action = AssemblyAction.none
            // A claim that no longer holds changes nothing: another engine runs the Assembly now.
            guard self.store.update(id, claim: claim, { record in action = record.apply(event) }) != nil else { return discard() }
            if action == .discardResults { discard() }
        }
        guard let stored = store.get(id), stored.phase == .executing else { return discard() }
        inputs = stored.uploads
        guard let graph = StepGraph(stored.steps) else {
            return end(.stepsFailed(code: .invalidSteps, message: "the steps cannot be run"))
        }
        // Nothing is written through a link below the data folder, at any depth: a state folder
        // restored from a cache or committed may hold one where this Assembly's results go.
        do { _ = try LinkFreeFolder.open(folder, below: FolderPath.of(resultsDirectory)) } catch {
            return end(.stepsFailed(code: .storeError, message: "the Assembly's results folder cannot be used: \(error.shortReason)"))
        }
        // A file handed over in process (its inode, linked) must not have been written to since:
        // never bytes nobody planned.
        do throws(RobotError) { try Self.checkHandedOver(stored.uploads) } catch {
            return end(.stepsFailed(code: error.code, message: error.message))
        }
        do throws(RobotError) { try files?.fetch(stored.uploads) } catch {
            return end(.stepsFailed(code: error.code, message: error.message))
        }
        let record = describeUploads(stored, claim: claim)
        let outputs = Mutex<[String: [AssemblyFile]]>([":original": record.uploads])
        let ignored = Mutex<[AssemblyStatusDocument.IgnoredError]>([])
        let warnings = Mutex<[AssemblyStatusDocument.Warning]>([])
        let store = store, limits = limits, storage = storage, secrets = secrets
        let exports = FolderPath.of(resultsDirectory) + "/exports"
        // Steps that do not use each other run at once (each also spreads its files over the cores).
        for wave in graph.waves {
            // Stopping: the Assembly stays executing, for the next engine, and keeps nothing half made.
            if store.get(id)?.isTerminal == true || stopping.load(ordering: .relaxed) || lost(claim) { return discard() }
            let failures = Mutex<[Int: RobotError]>([:])
            ParallelWork.forEach(count: wave.count, workers: wave.count) { index in
                let step = wave[index]
                let inputs = outputs.withLock { produced in step.uses.flatMap { produced[$0] ?? [] } }
                let context = RobotContext(
                    step: step, folder: folder, fields: record.fields, assembly: id, exports: exports, limits: limits,
                    storage: storage, inlineSecrets: secrets.secrets(of: id, step: step.name),
                    isCanceled: { [self] in stopping.load(ordering: .relaxed) || lost(claim) || store.get(id)?.isTerminal ?? true },
                    ignore: { error, file in
                        let entry = AssemblyStatusDocument.IgnoredError(
                            step: step.name, robot: step.robot, error: error.code, message: error.message, originalID: file?.originalID, name: file?.name)
                        ignored.withLock { $0.append(entry) }
                    },
                    warn: { message, file in
                        let entry = AssemblyStatusDocument.Warning(
                            level: "warning", msg: message, step: step.name, robot: step.robot, originalID: file.originalID, name: file.name)
                        warnings.withLock { $0.append(entry) }
                    })
                do throws(RobotError) {
                    let produced = try Robots.run(context, on: inputs)
                    outputs.withLock { $0[step.name] = produced }
                } catch {
                    failures.withLock { $0[index] = error }
                }
            }
            // The first failing step in the Assembly's order names the failure.
            if stopping.load(ordering: .relaxed) { return discard() }
            if let (index, error) = failures.withLock({ $0 }).min(by: { $0.key < $1.key }) {
                // Canceled meanwhile, the robot stopped because of it: that is no failure (the
                // lifecycle keeps the cancel). The files go either way, before the failure shows:
                // a client that sees it finds no partial files.
                discard()
                return end(.stepsFailed(code: error.code, message: "step '\(wave[index].name)' (\(wave[index].robot)): \(error.message)"))
            }
        }
        let produced = outputs.withLock { $0 }
        var results = Dictionary(uniqueKeysWithValues: graph.ordered.filter(graph.isResult).map { ($0.name, produced[$0.name] ?? []) })
        do throws(RobotError) {
            try Self.checkHandedOver(record.uploads)
            results = try Self.keepHandedOver(results, in: folder, below: resultsDirectory)
        } catch {
            discard()
            return end(.stepsFailed(code: error.code, message: error.message))
        }
        results = results.mapValues { files in files.map(Self.withMD5) }
        do throws(RobotError) { try files?.publish(results.values.flatMap { $0 }) } catch {
            discard()
            return end(.stepsFailed(code: error.code, message: error.message))
        }
        end(.stepsFinished(results: results, ignored: ignored.withLock { $0 }, warnings: warnings.withLock { $0 }))
    }

    /// `results` with every file read in place that a step handed on as its result (`/upload/handle`,
    /// `/file/filter`, `/file/hash`) copied into the Assembly's results folder, once per file: a
    /// result is the Assembly's own, in its data folder, whatever becomes of the original.
    private static func keepHandedOver(_ results: [String: [AssemblyFile]], in folder: String, below root: String) throws(RobotError) -> [String: [AssemblyFile]] {
        guard results.values.contains(where: { $0.contains { $0.inPlace != nil } }) else { return results }
        var copies: [String: (path: String, id: String)] = [:]
        var results = results
        for step in results.keys.sorted() {
            for index in results[step, default: []].indices {
                guard let original = results[step]?[index], original.inPlace != nil else { continue }
                // Checked unwritten just before (`checkHandedOver`), as the steps left it.
                if copies[original.path] == nil {
                    let id = AssemblyFile.newID()
                    let copy = folder + "/originals/" + id
                    do throws(FileError) {
                        try LinkFreeFolder.open(copy, below: FolderPath.of(root)).placeCopy(of: original.path, as: original.name, followingLinks: true)
                    } catch {
                        throw RobotError(code: .storeError, message: "'\(original.name)' could not be kept with the Assembly's results: \(error.shortReason)")
                    }
                    copies[original.path] = (copy + "/" + original.name, id)
                }
                guard let copy = copies[original.path] else { continue }
                results[step]?[index].path = copy.path
                results[step]?[index].inPlace = nil
                // The upload itself handed on (`/upload/handle`) gets an id of its own: its id names the upload, read in place.
                if original.id == original.originalID { results[step]?[index].id = copy.id }
            }
        }
        return results
    }

    /// Fails when a file handed over in process was written to since (its size or time moved;
    /// it is the same inode, linked).
    private static func checkHandedOver(_ uploads: [AssemblyFile]) throws(RobotError) {
        for file in uploads {
            if let change = file.inPlace?.change(at: file.path) {
                throw RobotError(code: .fileChanged, message: "'\(file.name)' changed after it was handed to the Assembly (\(change)); run again")
            }
        }
    }

    /// `file` with its MD5, read now when no robot gave one (a file a step handed on as it is):
    /// clients check every download by it, as the service gives it for every result.
    private static func withMD5(_ file: AssemblyFile) -> AssemblyFile {
        guard file.md5 == nil else { return file }
        var file = file
        file.md5 = ResultSlot.md5(of: file.path, size: file.size)
        return file
    }
}
