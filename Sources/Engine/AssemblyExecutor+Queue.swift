import Basics

extension AssemblyExecutor {
    /// Starts claiming executing Assemblies from the shared queue, `maxRunning` at a time, until
    /// the engine stops: at each announcement, and at least every second (for Assemblies whose
    /// engine died, once their lease has run out). Renews every held claim at a third of the lease.
    func startClaiming() {
        guard let queue else { return }
        DedicatedThread.start("claims") { [self] in
            var renewed = ContinuousClock.now
            while !stopping.load(ordering: .relaxed) {
                claimWhileRoom(queue)
                if ContinuousClock.now - renewed >= queue.lease / 3 {
                    renewHeld(queue)
                    renewed = .now
                }
                queue.waitForWork(atMost: min(.seconds(1), queue.lease / 3))
            }
        }
    }

    /// Claims and starts Assemblies while fewer than `maxRunning` run here.
    private func claimWhileRoom(_ queue: any RunQueue) {
        while !stopping.load(ordering: .relaxed) {
            let room = waiting.withLock { state in
                guard state.running < maxRunning else { return false }
                state.running += 1
                return true
            }
            guard room else { return }
            guard let claim = try? queue.claim() else {  // none waits, or the database is away: tried again at the next wake
                waiting.withLock { $0.running -= 1 }
                return
            }
            start(claim, queue)
        }
    }

    /// Assembly `id` is ready (its files arrived here): this engine runs it when it has room, with
    /// the copies it holds; otherwise any engine claims it (this one too: its claims go on while
    /// this runs, so the copies stay until a sweep finds them old and not running here).
    func executeHere(_ id: String, _ queue: any RunQueue) {
        let room = waiting.withLock { state in
            guard state.running < maxRunning else { return false }
            state.running += 1
            return true
        }
        if room, let claim = try? queue.claim(id) {  // none (another engine has it) or the database is away: announced below
            return start(claim, queue)
        }
        if room { waiting.withLock { $0.running -= 1 } }
        queue.announce()
    }

    /// Runs `claim`'s Assembly on a thread of its own (its turn taken already), then lets it go.
    private func start(_ claim: RunClaim, _ queue: any RunQueue) {
        claims.withLock { $0[claim.assembly] = (claim, false) }
        threads.submit { [self] in
            inFlight.enter()
            defer { inFlight.leave() }
            run(claim.assembly, claim: claim)
            claims.withLock { _ = $0.removeValue(forKey: claim.assembly) }
            queue.release(claim)
            waiting.withLock { $0.running -= 1 }
            queue.announce()  // a turn is free: this engine, or another, claims the next
        }
    }

    /// Renews the lease of every claim held; one that no longer holds is marked lost (its run stops).
    private func renewHeld(_ queue: any RunQueue) {
        for (id, held) in claims.withLock({ $0 }) where !held.lost {
            if !queue.renew(held.claim) { claims.withLock { $0[id]?.lost = true } }
        }
    }

    /// The Assemblies whose steps run here now.
    var runningHere: Set<String> { Set(claims.withLock { $0.keys }) }

    /// Whether `claim` no longer holds its Assembly (another engine took it after the lease ran out).
    func lost(_ claim: RunClaim?) -> Bool {
        guard let claim else { return false }
        return claims.withLock { $0[claim.assembly]?.lost ?? false }
    }
}
