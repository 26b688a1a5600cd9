import APIClients
import Basics
import Synchronization

/// Paces a run's Assembly creations, for the whole process: at most `perMinute` of them, as a
/// token bucket that allows bursts of `burst`; and once the service says it is rate limited
/// (413/429 with a time to wait), every request of the run waits that pause out, not only the
/// one that was refused. The bucket and the pause are one locked state; the waits are outside it.
final class CreationPacer: RequestHold {
    /// Set when an Assembly gave up on an endpoint it could not reach, cleared by any answer:
    /// the run's other Assemblies then fail at their first refused connection instead of each
    /// retrying a server that is down.
    let endpointDown = Atomic<Bool>(false)
    private let clock: any MonotonicClock
    private let interval: Duration?
    private let burst: Double

    private struct Bucket {
        var tokens: Double
        var refilled: ContinuousClock.Instant
        var pausedUntil: ContinuousClock.Instant
    }

    private let bucket: Mutex<Bucket>

    /// A pacer of `perMinute` creations (more than zero; nil: only rate-limit pauses), starting with a full bucket.
    init(perMinute: Double?, burst: Int = 10, clock: any MonotonicClock) {
        self.clock = clock
        interval = perMinute.map { .milliseconds(Int64((60_000 / $0).rounded(.up))) }
        self.burst = Double(max(1, burst))
        bucket = Mutex(Bucket(tokens: Double(max(1, burst)), refilled: clock.now, pausedUntil: clock.now))
    }

    /// Returns when one more creation may be sent.
    func admit() async throws {
        while true {
            try await waitOutPause()
            guard let interval else { return }
            let now = clock.now
            let wait = bucket.withLock { bucket -> Duration? in
                bucket.tokens = min(burst, bucket.tokens + (now - bucket.refilled) / interval)
                bucket.refilled = now
                guard bucket.tokens < 1 else {
                    bucket.tokens -= 1
                    return nil
                }
                return interval * (1 - bucket.tokens)
            }
            guard let wait else { return }
            try await clock.sleep(for: wait)
        }
    }

    /// Returns once no pause is in force.
    func waitOutPause() async throws {
        while true {
            let left = bucket.withLock { $0.pausedUntil } - clock.now
            guard left > .zero else { return }
            try await clock.sleep(for: left)
        }
    }

    /// Holds every request of the run for `duration` from now (a longer pause in force stays);
    /// async for the callers' sake (it was an actor's), it never suspends.
    func pause(for duration: Duration) async {
        _ = await extend(for: duration)
    }

    /// `pause(for:)`, saying whether it held the run longer than the pause already in force.
    func extend(for duration: Duration) async -> Bool {
        let until = clock.now + duration
        return bucket.withLock { bucket in
            guard until > bucket.pausedUntil else { return false }
            bucket.pausedUntil = until
            return true
        }
    }
}
