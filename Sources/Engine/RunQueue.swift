import Basics

/// Which engine runs each executing Assembly when several share their state, as tusd's `Locker`
/// decides who writes an upload: an engine claims an Assembly for a lease, renews it while the
/// steps run and lets go when it stops; one whose engine died (its lease ran out) is claimed
/// again by another. Without a queue (the data folder) the one engine runs what it starts.
protocol RunQueue: Sendable {
    /// How long a claim holds without being renewed.
    var lease: Duration { get }
    /// The oldest executing Assembly no engine holds (or whose holder's lease ran out), claimed
    /// for this engine; nil when there is none.
    func claim() throws -> RunClaim?
    /// Executing Assembly `id`, claimed for this engine when no engine holds it; nil otherwise.
    func claim(_ id: String) throws -> RunClaim?
    /// Renews `claim`'s lease; false when it no longer holds (another engine claimed the Assembly).
    func renew(_ claim: RunClaim) -> Bool
    /// Lets go of `claim` (its run ended, or stopped to be resumed by any engine).
    func release(_ claim: RunClaim)
    /// Tells every engine that an Assembly is ready to run.
    func announce()
    /// Returns once an engine announces an Assembly, or after `longest`.
    @available(*, noasync, message: "blocks its thread")
    func waitForWork(atMost longest: Duration)
}
