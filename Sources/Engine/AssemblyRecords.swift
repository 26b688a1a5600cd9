import Basics
import Foundation

/// Where the engine keeps its Assemblies, as tusd keeps uploads behind its `DataStore`: the data
/// folder (`AssemblyStore`, the default and the embedded engine's) or a database several engines
/// share (`SharedAssemblyStore`). Every change is one locked step (`update`); a change of phase
/// wakes the status requests held for it, on every engine that shares the store.
protocol AssemblyRecords: AnyObject, Sendable {
    /// The local folder an Assembly's files are kept in, by id (`<directory>/<id>/uploads`);
    /// records name files relative to the folder above it.
    var directory: String { get }
    /// Adds a new Assembly, stored before it returns; `false` when the id is taken.
    func insert(_ record: AssemblyRecord) throws -> Bool
    /// Assembly `id`, or nil.
    func get(_ id: String) -> AssemblyRecord?
    /// `id` as a client may be told of it: with a phase that is stored, not only in memory.
    func reported(_ id: String) -> AssemblyRecord?
    /// Changes Assembly `id` in one locked step and keeps it; returns the new state (nil: no such
    /// Assembly, or `claim` no longer holds it).
    @discardableResult
    func update(_ id: String, claim: RunClaim?, _ change: (inout AssemblyRecord) -> Void) -> AssemblyRecord?
    /// The Assemblies not yet settled (`AssemblyRecord.isSettled`).
    var live: [AssemblyRecord] { get }
    /// Every stored Assembly (the whole history: an admin listing).
    func allStored() -> [AssemblyRecord]
    /// Forgets the Assemblies `ids` (their files are removed by the caller).
    func remove(_ ids: Set<String>)
    /// Tells `observer` of each Assembly as it ends, after the change.
    func observeEnds(_ observer: @escaping @Sendable (AssemblyRecord) -> Void)
    /// `id` once its phase is no longer `phase` or `deadline` has passed (see `AssemblyStore`).
    @available(*, noasync, message: "blocks its thread")
    func waitForChange(
        of id: String, from phase: AssemblyPhase, until deadline: ContinuousClock.Instant, clientGone: () -> Bool,
        whenAnswered: (@escaping @Sendable () -> Void) -> Void
    ) -> AssemblyRecord?
    /// Answers every held status request now (the engine stops).
    @available(*, noasync, message: "blocks its thread")
    func releaseWaiters()
    /// Writes every change not yet stored.
    func flush()
    /// Status requests held now.
    var heldCount: Int { get }
    /// Callers in the engine's process waiting for an Assembly to move on.
    var signals: PhaseSignals { get }
    /// Records read at start.
    var readAtStart: Int { get }
    /// The clock held requests' deadlines are kept by.
    var clock: any MonotonicClock { get }
    /// Whether the store answered its last request: one it could not reach cannot say an Assembly is missing.
    var isReachable: Bool { get }
}

extension AssemblyRecords {
    /// The data folder is always there.
    var isReachable: Bool { true }

    /// Changes Assembly `id` in one locked step and keeps it, whoever runs it.
    @discardableResult
    func update(_ id: String, _ change: (inout AssemblyRecord) -> Void) -> AssemblyRecord? {
        update(id, claim: nil, change)
    }
}

/// One engine's hold on an executing Assembly: given when it claims the Assembly to run its steps,
/// for a lease it renews while they run. A change made with a claim that no longer holds (its lease
/// ran out and another engine claimed the Assembly) is refused.
struct RunClaim: Sendable, Equatable {
    /// The Assembly claimed.
    let assembly: String
    /// Unique to this claim; checked by every change made under it.
    let token: String
}
