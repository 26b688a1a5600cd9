import Basics
import Foundation
import Synchronization

/// Removes what the retention window no longer holds, on a schedule: the uploads and results of
/// Assemblies that ended longer ago than `retention.files` (their records kept, compact, saying
/// what went and when), tus uploads abandoned past their expiry or finished longer ago than the
/// window, and after `retention.records` the records themselves. An Assembly not yet settled
/// keeps everything (a replay links its parent's uploads as its own when it is made).
final class RetentionSweep: Sendable {
    let retention: EngineRetention
    private let store: AssemblyStore
    private let uploads: UploadStore
    private let dataDirectory: String
    /// How long an unfinished upload is kept.
    private let uploadLifetime: TimeInterval
    private let clock: any MonotonicClock
    /// Told of each sweep that removed something.
    private let log: @Sendable (String) -> Void
    private let totals = Mutex(SweepTotals())
    private let recordsSweptAt = Mutex<ContinuousClock.Instant?>(nil)
    private let schedule = Mutex<Task<Void, Never>?>(nil)
    /// Held by the sweep under way: one at a time.
    private let sweeping = Mutex(())

    init(retention: EngineRetention, store: AssemblyStore, uploads: UploadStore, dataDirectory: String, uploadLifetime: TimeInterval,
         clock: any MonotonicClock, log: @escaping @Sendable (String) -> Void) {
        (self.retention, self.store, self.uploads, self.dataDirectory) = (retention, store, uploads, dataDirectory)
        (self.uploadLifetime, self.clock, self.log) = (uploadLifetime, clock, log)
    }

    /// What the sweeps did since the engine started, and what the data folder held at the last one.
    var current: SweepTotals { totals.withLock { $0 } }

    /// Sweeps now, then every `retention.sweepInterval` until `stop`.
    func start() {
        let task = Task { [self] in
            while !Task.isCancelled {
                do {
                    try await BlockingPool.shared.run { [self] in _ = sweep() }
                    try await clock.sleep(for: retention.sweepInterval)
                } catch {
                    return  // stopped
                }
            }
        }
        schedule.withLock { $0 = task }
    }

    /// Ends the schedule (a sweep under way finishes).
    func stop() { schedule.withLock { $0 }?.cancel() }

    /// One sweep; what it removed.
    @discardableResult
    func sweep() -> SweepTotals {
        sweeping.withLock { _ in sweepAlone() }
    }

    private func sweepAlone() -> SweepTotals {
        let now = clock.date
        let cutoff = now.addingTimeInterval(-retention.files.inSeconds)
        var swept = SweepTotals()
        for (id, since) in store.index.entries(.ended) where since <= cutoff {
            guard let freed = expire(id, at: now) else { continue }
            swept.expiredAssemblies += 1
            swept.freedBytes += freed
        }
        // The records say what went before the sweep reports it (and before records are looked at).
        if swept.expiredAssemblies > 0 { store.flush() }
        let abandoned = uploads.sweep(now: now, finishedBefore: cutoff, lifetime: uploadLifetime)
        (swept.removedUploads, swept.freedBytes) = (abandoned.uploads, swept.freedBytes + abandoned.bytes)
        if let keep = retention.records, recordSweepIsDue() {
            swept.removedRecords = removeRecords(writtenBefore: now.addingTimeInterval(-keep.inSeconds))
        }
        let usage = DiskUsage.of(dataDirectory)
        let stored = DiskUsage.count(in: store.directory, endingIn: ".json")
        let total = totals.withLock { totals in
            totals.add(swept)
            (totals.sweeps, totals.lastSweep, totals.storedBytes, totals.storedAssemblies) = (totals.sweeps + 1, now, usage, stored)
            return totals
        }
        if swept.expiredAssemblies + swept.removedUploads + swept.removedRecords > 0 {
            log("retention: removed the files of \(swept.expiredAssemblies) Assemblies ended over \(DurationText.format(retention.files)) ago, "
                + "\(swept.removedUploads) tus uploads and \(swept.removedRecords) records (\(ByteSize(bytes: swept.freedBytes)) freed); "
                + "the data folder holds \(stored) Assemblies in \(ByteSize(bytes: total.storedBytes))")
        }
        return swept
    }

    /// Removes the uploads and results of ended Assembly `id` and records so in it; the bytes
    /// freed, or nil when it is not one to expire.
    private func expire(_ id: String, at now: Date) -> Int64? {
        guard let record = store.get(id) else {
            try? store.index.place(id, in: nil)  // best effort: a marker of no record is met again at the next sweep
            return nil
        }
        // Brought back to life (its notification sent again) since it was marked: the store marks it anew.
        guard record.isSettled, record.filesRemoved == nil else { return nil }
        var freed: Int64 = 0
        for link in record.tusLinks { freed += uploads.delete(link.uploadID) }
        var tally = DataFolderSweep.sweep(["assemblies", id], below: dataDirectory, dryRun: false)
        tally += DataFolderSweep.removeEntry(id, in: ["assemblies"], below: dataDirectory, dryRun: false)
        tally += DataFolderSweep.sweep(["results", id], below: dataDirectory, dryRun: false)
        tally += DataFolderSweep.removeEntry(id, in: ["results"], below: dataDirectory, dryRun: false)
        // The files first: a sweep cut off here finds the Assembly marked ended again, and finishes.
        store.update(id) { $0.removeFiles(at: now) }
        return freed + tally.bytes
    }

    /// Removes the records whose files went and which were last written before `cutoff`; how many.
    private func removeRecords(writtenBefore cutoff: Date) -> Int {
        let marked = Set(store.index.ids(.live)).union(store.index.ids(.ended))
        let old = store.storedIDs.filter { id in
            var info = stat()
            guard !marked.contains(id), lstat(store.directory + "/" + id + ".json", &info) == 0 else { return false }
            return TimeInterval(info.st_mtim.tv_sec) < cutoff.timeIntervalSince1970
        }
        // Read once more: only a record that says its files went is removed.
        let removable = Set(old.filter { store.get($0)?.filesRemoved != nil })
        store.remove(removable)
        return removable.count
    }

    private func recordSweepIsDue() -> Bool {
        let now = clock.now
        return recordsSweptAt.withLock { last in
            guard last.map({ now - $0 >= retention.recordSweepInterval }) ?? true else { return false }
            last = now
            return true
        }
    }
}

/// What retention sweeps removed, and what the data folder held at the last one.
public struct SweepTotals: Sendable, Equatable {
    /// Sweeps run.
    public var sweeps = 0
    /// When the last one ran.
    public var lastSweep: Date?
    /// Ended Assemblies whose uploads and results went.
    public var expiredAssemblies = 0
    /// Tus uploads removed (abandoned, or finished longer ago than the window).
    public var removedUploads = 0
    /// Records removed after the record retention.
    public var removedRecords = 0
    /// Bytes freed.
    public var freedBytes: Int64 = 0
    /// Bytes the data folder held at the last sweep.
    public var storedBytes: Int64 = 0
    /// Assemblies the data folder held at the last sweep.
    public var storedAssemblies = 0

    mutating func add(_ sweep: SweepTotals) {
        expiredAssemblies += sweep.expiredAssemblies
        removedUploads += sweep.removedUploads
        removedRecords += sweep.removedRecords
        freedBytes += sweep.freedBytes
    }
}
