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

/// Which engine announces each ended Assembly to its `notify_url`, when several share their state:
/// one at a time, for a lease renewed before each attempt; a delivery whose engine died is taken
/// up by another once its lease has run out.
protocol DeliveryLeases: Sendable {
    /// Takes (or renews) the delivery of Assembly `id`'s announcement; false when another engine has it.
    func take(_ id: String) -> Bool
    /// Gives the delivery of `id` back (delivered, given up, or the engine stops).
    func release(_ id: String)
    /// The ended Assemblies whose announcement is pending and that no engine is delivering.
    func orphaned() -> [String]
}

/// Where an Assembly's files live beyond this engine's folder, when several engines share them
/// (a bucket): the engine keeps local copies under its folder, in the layout records name.
protocol SharedFiles: Sendable {
    /// Makes `files` present under this engine's folder, fetched where missing.
    func fetch(_ files: [AssemblyFile]) throws(RobotError)
    /// Stores `files` (under this engine's folder) where every engine finds them.
    func publish(_ files: [AssemblyFile]) throws(RobotError)
    /// Copies `file` from where every engine finds it to `path` (a copy to serve, then remove).
    func copy(_ file: AssemblyFile, to path: String) throws(RobotError)
    /// Removes this engine's local copies of Assembly `id`'s files and of `inputs` (its run ended
    /// here, or they were published): the bucket keeps them.
    func dropLocalCopies(assembly id: String, inputs: [AssemblyFile])
    /// Removes everything stored for Assembly `id`.
    func remove(assembly id: String)
}
