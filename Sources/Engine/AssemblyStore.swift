import Foundation
import Basics
import Synchronization

/// The engine's Assemblies, as JSON files in the data folder, so they survive a restart; in
/// memory only those not yet settled (`AssemblyRecord.isSettled`) and a few settled ones recently
/// read, so memory and start time follow what is live, not the history (`AssemblyIndex` says
/// which are live without reading the rest). Changes are written behind, atomically and in the
/// order made: each changed Assembly once per `writeDelay`, however many uploads changed it
/// meanwhile (an Assembly of n files would otherwise be encoded n times over), without flushing
/// to disk. A client is told only of a phase the Assembly's file holds (`reported` writes it first
/// when it does not yet): an engine killed a moment later still knows every Assembly it said had completed.
final class AssemblyStore: AssemblyRecords {
    let directory: String
    /// Which Assemblies are live, and which ended ones still have their files.
    let index: AssemblyIndex

    private struct State {
        /// Assemblies not settled, and settled ones with a change not yet written.
        var records: [String: AssemblyRecord] = [:]
        /// The phase of each Assembly in `records` as its file holds it.
        var writtenPhases: [String: AssemblyPhase] = [:]
        /// Where the index has each Assembly in `records` (absent: not known without looking).
        var placed: [String: AssemblyIndex.Part?] = [:]
        /// Assemblies changed since they were last written.
        var unwritten: Set<String> = []
        /// Settled Assemblies read lately.
        var recent = RecentRecords(capacity: AssemblyStore.recentCapacity)
    }

    private let state: Mutex<State>
    /// Held by whoever writes, so writes never overtake each other.
    private let writer = Mutex(())
    /// Status requests held until their Assembly moves on.
    private let held = HeldRequests(most: AssemblyStore.mostHeld)
    static let mostHeld = 32
    /// Settled Assemblies kept in memory once read.
    static let recentCapacity = 256
    /// Status requests held now.
    var heldCount: Int { held.count }
    /// Callers in the engine's process waiting for an Assembly to move on.
    let signals = PhaseSignals()
    static let writeDelay: Duration = .milliseconds(20)
    /// Told of each Assembly that just ended (`observeEnds`).
    private let endObserver = Mutex<Callback<AssemblyRecord>?>(nil)
    /// Told when an Assembly cannot be written (it lives on in memory, and would not survive a restart).
    private let warn: @Sendable (String) -> Void
    /// The clock held requests' deadlines are kept by.
    let clock: any MonotonicClock
    /// Records read at start: the live ones (all of them, the first time a folder from before the index is opened).
    let readAtStart: Int

    init(directory: String, warn: @escaping @Sendable (String) -> Void = { _ in }, clock: any MonotonicClock = SystemClock()) throws {
        self.directory = directory
        self.warn = warn
        self.clock = clock
        index = AssemblyIndex(directory: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var live: [String: AssemblyRecord] = [:]
        var read = 0
        if index.exists {
            for id in index.ids(.live) {
                read += 1
                guard let record = Self.read(id, in: directory, warn: warn) else {
                    try? index.place(id, in: nil)  // best effort: a marker without its record is passed over at each start
                    continue
                }
                if record.isSettled { try index.place(id, in: record.indexPart) } else { live[id] = record }
            }
        } else {
            // A data folder from before the index: every record read once, to make it.
            var parts: [(id: String, part: AssemblyIndex.Part, since: Date)] = []
            for name in try FileSystem.names(in: directory) where name.hasSuffix(".json") {
                read += 1
                guard let record = Self.read(String(name.dropLast(5)), in: directory, warn: warn) else { continue }
                if let part = record.indexPart { parts.append((record.id, part, part == .live ? record.created : record.finished ?? record.created)) }
                if !record.isSettled { live[record.id] = record }
            }
            try index.build(parts)
        }
        readAtStart = read
        var initial = State()
        initial.records = live
        initial.writtenPhases = live.mapValues(\.phase)
        initial.placed = live.mapValues { _ in .live }
        state = Mutex(initial)
    }

    /// The stored record of `id`, checked; nil (with a warning for one that is damaged or not
    /// this engine's) when there is none.
    private static func read(_ id: String, in directory: String, warn: (String) -> Void) -> AssemblyRecord? {
        do {
            guard let data = try readIfPresent(directory + "/" + id + ".json") else { return nil }
            return try AssemblyRecord.fromStoredForm(data, id: id, root: FolderPath.of(directory))
        } catch let refusal as StoredRecordRefusal {
            warn("ignored the stored Assembly '\(id.printable).json': \(refusal.reason); move it away to keep it from this message")
        } catch {
            warn("ignored the stored Assembly '\(id.printable).json': it cannot be read (\(error)); move it away to keep it from this message")
        }
        return nil
    }

    /// The bytes at `path`; nil when there is nothing there (nor a folder to hold it).
    private static func readIfPresent(_ path: String) throws(FileError) -> Data? {
        do {
            return try FileSystem.readIfPresent(path, limit: 1 << 30)
        } catch {
            if error.code == ENOTDIR { return nil }
            throw error
        }
    }

    /// Every record stored in `directory`, read without opening a store on it (nothing is written).
    static func readAll(in directory: String) -> [AssemblyRecord] {
        FileSystem.namesOrNone(in: directory).filter { $0.hasSuffix(".json") }.compactMap { read(String($0.dropLast(5)), in: directory, warn: { _ in }) }
    }

    /// Forgets the Assemblies `ids` (their files are removed by the caller).
    func remove(_ ids: Set<String>) {
        state.withLock { state in
            for id in ids {
                state.records.removeValue(forKey: id)
                state.writtenPhases.removeValue(forKey: id)
                state.placed.removeValue(forKey: id)
                state.recent.remove(id)
            }
        }
        for id in ids {
            unlink(directory + "/" + id + ".json")
            try? index.place(id, in: nil)  // best effort: a marker without its record is dropped at the next start
        }
    }

    /// Whether `id` has the shape of an Assembly id.
    static func isValidID(_ id: String) -> Bool { UploadStore.isValidID(id) }

    /// Adds a new Assembly; `false` when the id is taken. Written before the creating request
    /// is answered: an acknowledged Assembly survives a killed engine.
    func insert(_ record: AssemblyRecord) throws -> Bool {
        guard get(record.id) == nil else { return false }
        let inserted = state.withLock { state -> Bool in
            guard state.records[record.id] == nil else { return false }
            state.records[record.id] = record
            return true
        }
        guard inserted else { return false }
        do {
            try index.place(record.id, in: .live)
            try writer.withLock { _ in try save(record) }
            state.withLock { $0.placed[record.id] = .live }
        } catch {
            state.withLock { _ = $0.records.removeValue(forKey: record.id) }
            try? index.place(record.id, in: nil)  // best effort: a marker without its record is dropped at the next start
            throw error
        }
        return true
    }

    /// Assembly `id`: from memory, else read from the data folder (and kept among the recent ones).
    func get(_ id: String) -> AssemblyRecord? {
        if let known = state.withLock({ $0.records[id] ?? $0.recent.get(id) }) { return known }
        guard Self.isValidID(id), let record = Self.read(id, in: directory, warn: warn) else { return nil }
        return state.withLock { state in
            if let newer = state.records[id] ?? state.recent.get(id) { return newer }
            state.recent.put(record)
            return record
        }
    }

    /// `id` as a client may be told of it: with a phase its file holds (written now when a change
    /// of phase has not been yet).
    func reported(_ id: String) -> AssemblyRecord? {
        guard let record = get(id) else { return nil }
        guard let written = state.withLock({ $0.writtenPhases[id] }), written != record.phase else { return record }
        return writer.withLock { _ in write(id) } ?? get(id)
    }

    /// The Assemblies in memory: every one not settled, for resuming work after a restart.
    var live: [AssemblyRecord] { state.withLock { Array($0.records.values) } }

    /// The ids of every stored Assembly.
    var storedIDs: [String] {
        FileSystem.namesOrNone(in: directory).compactMap { $0.hasSuffix(".json") ? String($0.dropLast(5)) : nil }.filter(Self.isValidID)
    }

    /// Every stored Assembly, read from the data folder (a listing of the whole history).
    func allStored() -> [AssemblyRecord] { storedIDs.compactMap(get) }

    /// Changes an Assembly under the lock and saves it; returns the new state. One engine owns the
    /// folder, so every claim holds.
    @discardableResult
    func update(_ id: String, claim: RunClaim?, _ change: (inout AssemblyRecord) -> Void) -> AssemblyRecord? {
        // A settled Assembly is brought back into memory for the change (until it is written).
        guard let known = get(id) else { return nil }
        var moved = false
        let (updated, first) = state.withLock { state -> (AssemblyRecord?, Bool) in
            if state.records[id] == nil {
                let record = state.recent.take(id) ?? known
                state.records[id] = record
                state.writtenPhases[id] = record.phase
            }
            guard var record = state.records[id] else { return (nil, false) }
            let phase = record.phase
            change(&record)
            state.records[id] = record
            moved = record.phase != phase
            return (record, state.unwritten.insert(id).inserted && state.unwritten.count == 1)
        }
        if first {
            Task { [self] in
                _ = await Task.pause(for: Self.writeDelay)  // never cancelled: written after the delay
                // Written off the tasks' threads, as a write blocks.
                BlockingPool.shared.submit { [self] in writer.withLock { _ in writeChanged() } }
            }
        }
        // Held status requests wait for a phase to change, not for every upload.
        if moved {
            held.moved(id)
            signals.moved(id)
            if let updated, updated.isTerminal { tellEnded(updated) }
        }
        return updated
    }

    /// Tells `observer` of each Assembly as it ends, after the change.
    func observeEnds(_ observer: @escaping @Sendable (AssemblyRecord) -> Void) {
        endObserver.withLock { $0 = Callback(observer) }
    }

    /// Tells the observer that `record` ended.
    func tellEnded(_ record: AssemblyRecord) {
        endObserver.withLock { $0 }?(record)
    }

    /// `id` once its phase is no longer `phase` or `deadline` has passed, whichever comes first;
    /// at once when the engine is stopping or `mostHeld` requests are held already, and as soon
    /// as `clientGone` says nobody waits for the answer. Nil when there is no such Assembly. A
    /// stop waits for its answer until `whenAnswered` runs what it is given (the answer sent).
    @available(*, noasync, message: "blocks its thread")
    func waitForChange(
        of id: String, from phase: AssemblyPhase, until deadline: ContinuousClock.Instant, clientGone: () -> Bool,
        whenAnswered: (@escaping @Sendable () -> Void) -> Void = { $0() }
    ) -> AssemblyRecord? {
        held.waitForChange(of: id, from: phase, until: deadline, clock: clock, clientGone: clientGone, whenAnswered: whenAnswered, read: get)
    }

    /// Answers every held status request now, and waits (a second at most) until their answers
    /// are sent; the engine is stopping, and its server's stop would cut an answer not yet sent.
    @available(*, noasync, message: "blocks its thread")
    func releaseWaiters() {
        held.stop(waitingAtMost: .seconds(1))
    }

    /// Writes every changed Assembly now (when the engine stops).
    func flush() {
        writer.withLock { _ in writeChanged() }
    }

    /// Runs holding `writer` only, so writes never overtake each other; each takes the latest state.
    private func writeChanged() {
        for id in state.withLock({ state in defer { state.unwritten.removeAll() }; return state.unwritten }).sorted() { write(id) }
    }

    /// Writes the latest state of `id`, and returns it; holding `writer` only. A write behind that was
    /// waiting for it has nothing left to write (a change after this read waits again). A settled
    /// Assembly written with no change since leaves memory for the recent ones.
    @discardableResult
    private func write(_ id: String) -> AssemblyRecord? {
        guard let record = state.withLock({ state in
            state.unwritten.remove(id)
            return state.records[id]
        }) else { return nil }
        let part = record.indexPart
        do {
            try save(record)
            if state.withLock({ $0.placed[id] }) != .some(part) { try index.place(id, in: part) }
        } catch {
            // Kept in memory, where it lives on until the engine stops.
            warn("Assembly \(id) could not be saved in the data folder: \(error)")
            return record
        }
        state.withLock { state in
            state.placed[id] = part
            guard record.isSettled, !state.unwritten.contains(id), let current = state.records.removeValue(forKey: id) else { return }
            state.writtenPhases.removeValue(forKey: id)
            state.placed.removeValue(forKey: id)
            state.recent.put(current)
        }
        return record
    }

    private func save(_ record: AssemblyRecord) throws {
        try AtomicFile.write(try record.storedForm(relativeTo: FolderPath.of(directory)), to: directory + "/" + record.id + ".json", durable: false)
        state.withLock { if $0.records[record.id] != nil { $0.writtenPhases[record.id] = record.phase } }
    }
}
