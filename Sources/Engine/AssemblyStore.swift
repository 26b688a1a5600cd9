import Foundation
import Basics
import Synchronization

/// The engine's Assemblies, in memory and as JSON files in the data folder, so they survive a
/// restart. Changes are written behind, atomically and in the order made: each changed Assembly
/// once per `writeDelay`, however many uploads changed it meanwhile (an Assembly of n files
/// would otherwise be encoded n times over), without flushing to disk. A client is told only of
/// a phase the Assembly's file holds (`reported` writes it first when it does not yet): an engine
/// killed a moment later still knows every Assembly it said had completed.
final class AssemblyStore: Sendable {
    let directory: String
    private let records: Mutex<[String: AssemblyRecord]>
    /// The phase of each Assembly as its file holds it.
    private let writtenPhases: Mutex<[String: AssemblyPhase]>
    /// Assemblies changed since they were last written.
    private let unwritten = Mutex<Set<String>>([])
    private let writer = DispatchQueue(label: "assembly-store.writer")
    /// Status requests held until their Assembly moves on.
    private let held = HeldRequests(most: AssemblyStore.mostHeld)
    static let mostHeld = 32
    /// Status requests held now.
    var heldCount: Int { held.count }
    /// Callers in the engine's process waiting for an Assembly to move on.
    let signals = PhaseSignals()
    static let writeDelay = DispatchTimeInterval.milliseconds(20)
    /// Told of each Assembly that just ended (`observeEnds`).
    private let endObserver = Mutex<(@Sendable (AssemblyRecord) -> Void)?>(nil)
    /// Told when an Assembly cannot be written (it lives on in memory, and would not survive a restart).
    private let warn: @Sendable (String) -> Void
    /// The clock held requests' deadlines are kept by.
    let clock: any MonotonicClock

    init(directory: String, warn: @escaping @Sendable (String) -> Void = { _ in }, clock: any MonotonicClock = SystemClock()) throws {
        self.directory = directory
        self.warn = warn
        self.clock = clock
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var loaded: [String: AssemblyRecord] = [:]
        for name in try FileSystem.names(in: directory) where name.hasSuffix(".json") {
            let record: AssemblyRecord
            do {
                record = try StateCoding.decode(AssemblyRecord.self, from: try FileReading.read(directory + "/" + name, limit: 1 << 30))
                    .mappingFilePaths { Self.stored($0, in: FolderPath.of(directory)) }
            } catch {
                warn("ignored the stored Assembly '\(name.printable)': it cannot be read (\(error)); move it away to keep it from this message")
                continue
            }
            // A stored record is input, never truth (the data folder may come from a cache or a
            // commit): one named for another id, or naming a file outside the data folder (which
            // the engine would serve and read as a robot's input), is not loaded.
            guard name == record.id + ".json", record.keepsItsFiles(inside: FolderPath.of(directory)) else {
                warn("ignored the stored Assembly '\(name.printable)': it names files outside the engine's data folder, or another id")
                continue
            }
            loaded[record.id] = record
        }
        records = Mutex(loaded)
        writtenPhases = Mutex(loaded.mapValues(\.phase))
    }

    /// A stored file's path: kept relative to the data folder `root` (so the folder can be copied
    /// or restored elsewhere), absolute in records older engines wrote.
    private static func stored(_ path: String, in root: String) -> String {
        path.hasPrefix("/") ? path : root + "/" + path
    }

    /// Forgets the Assemblies `ids` (their files are removed by the caller).
    func remove(_ ids: Set<String>) {
        records.withLock { records in for id in ids { records.removeValue(forKey: id) } }
        writtenPhases.withLock { phases in for id in ids { phases.removeValue(forKey: id) } }
        for id in ids { unlink(directory + "/" + id + ".json") }
    }

    /// Whether `id` has the shape of an Assembly id.
    static func isValidID(_ id: String) -> Bool { UploadStore.isValidID(id) }

    /// Adds a new Assembly; `false` when the id is taken. Written before the creating request
    /// is answered: an acknowledged Assembly survives a killed engine.
    func insert(_ record: AssemblyRecord) throws -> Bool {
        let inserted = records.withLock { records -> Bool in
            guard records[record.id] == nil else { return false }
            records[record.id] = record
            return true
        }
        guard inserted else { return false }
        do { try writer.sync { try save(record) } } catch {
            records.withLock { _ = $0.removeValue(forKey: record.id) }
            throw error
        }
        return true
    }

    func get(_ id: String) -> AssemblyRecord? { records.withLock { $0[id] } }

    /// `id` as a client may be told of it: with a phase its file holds (written now when a change
    /// of phase has not been yet).
    func reported(_ id: String) -> AssemblyRecord? {
        guard let record = get(id) else { return nil }
        guard writtenPhases.withLock({ $0[id] }) != record.phase else { return record }
        return writer.sync { write(id) } ?? get(id)
    }

    /// Every Assembly, for resuming work after a restart.
    var all: [AssemblyRecord] { records.withLock { Array($0.values) } }

    /// Changes an Assembly under the lock and saves it; returns the new state.
    @discardableResult
    func update(_ id: String, _ change: (inout AssemblyRecord) -> Void) -> AssemblyRecord? {
        var moved = false
        let updated = records.withLock { records -> AssemblyRecord? in
            guard var record = records[id] else { return nil }
            let phase = record.phase
            change(&record)
            records[id] = record
            moved = record.phase != phase
            return record
        }
        if updated != nil { scheduleWrite(id) }
        // Held status requests wait for a phase to change, not for every upload.
        if moved {
            held.moved(id)
            signals.moved(id)
            if let updated, updated.isTerminal { endObserver.withLock { $0 }?(updated) }
        }
        return updated
    }

    /// Tells `observer` of each Assembly as it ends, after the change.
    func observeEnds(_ observer: @escaping @Sendable (AssemblyRecord) -> Void) {
        endObserver.withLock { $0 = observer }
    }

    /// `id` once its phase is no longer `phase` or `deadline` has passed, whichever comes first;
    /// at once when the engine is stopping or `mostHeld` requests are held already, and as soon
    /// as `clientGone` says nobody waits for the answer. Nil when there is no such Assembly.
    @available(*, noasync, message: "blocks its thread")
    func waitForChange(of id: String, from phase: AssemblyPhase, until deadline: ContinuousClock.Instant, clientGone: () -> Bool) -> AssemblyRecord? {
        guard let ticket = held.hold(id) else { return get(id) }
        defer { held.release(ticket) }
        while true {
            guard let record = get(id) else { return nil }
            let now = clock.now
            if record.phase != phase || held.isStopping || now >= deadline || clientGone() { return record }
            // In slices, to notice a client that went away (nothing tells of it), and a clock moved on.
            _ = held.wait(ticket, for: min(deadline - now, .milliseconds(250)))
        }
    }

    /// Answers every held status request now, and waits (a second at most) until they are
    /// answered; the engine is stopping.
    @available(*, noasync, message: "blocks its thread")
    func releaseWaiters() {
        let wereHeld = held.count > 0
        held.stop(waitingAtMost: 1)
        // The last answers leave their handlers just now: a moment for their connections to send them.
        if wereHeld { Thread.sleep(forTimeInterval: 0.1) }
    }

    /// Writes every changed Assembly now (when the engine stops).
    func flush() {
        writer.sync { writeChanged() }
    }

    private func scheduleWrite(_ id: String) {
        let first = unwritten.withLock { $0.insert(id).inserted && $0.count == 1 }
        if first { writer.asyncAfter(deadline: .now() + Self.writeDelay) { [self] in writeChanged() } }
    }

    /// Runs on `writer` only, so writes never overtake each other; each takes the latest state.
    private func writeChanged() {
        for id in unwritten.withLock({ ids in defer { ids.removeAll() }; return ids }).sorted() { write(id) }
    }

    /// Writes the latest state of `id`, and returns it; on `writer` only. A write behind that was
    /// waiting for it has nothing left to write (a change after this read waits again).
    @discardableResult
    private func write(_ id: String) -> AssemblyRecord? {
        unwritten.withLock { _ = $0.remove(id) }
        guard let record = get(id) else { return nil }
        do { try save(record) } catch { warn("Assembly \(id) could not be saved in the data folder: \(error)") }
        return record
    }

    private func save(_ record: AssemblyRecord) throws {
        let root = FolderPath.of(directory)
        let kept = record.mappingFilePaths { RealPath.relative($0, inside: root) ?? $0 }
        try AtomicFile.write(try kept.stateJSON().compactData, to: directory + "/" + record.id + ".json", durable: false)
        writtenPhases.withLock { $0[record.id] = record.phase }
    }
}
