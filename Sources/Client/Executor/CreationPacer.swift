import APIClients
import Basics
import Synchronization

/// Paces a run's Assembly creations, for the whole process: at most `perMinute` of them, as a
/// token bucket that allows bursts of `burst`; and once the service says it is rate limited
/// (413/429 with a time to wait), every request of the run waits that pause out, not only the
/// one that was refused.
actor CreationPacer: RequestHold {
    /// Set when an Assembly gave up on an endpoint it could not reach, cleared by any answer:
    /// the run's other Assemblies then fail at their first refused connection instead of each
    /// retrying a server that is down.
    nonisolated let endpointDown = Atomic<Bool>(false)
    private let clock: any MonotonicClock
    private let interval: Duration?
    private let burst: Double
    private var tokens: Double
    private var refilled: ContinuousClock.Instant
    private var pausedUntil: ContinuousClock.Instant

    /// A pacer of `perMinute` creations (more than zero; nil: only rate-limit pauses), starting with a full bucket.
    init(perMinute: Double?, burst: Int = 10, clock: any MonotonicClock) {
        self.clock = clock
        interval = perMinute.map { .milliseconds(Int64((60_000 / $0).rounded(.up))) }
        self.burst = Double(max(1, burst))
        tokens = Double(max(1, burst))
        refilled = clock.now
        pausedUntil = clock.now
    }

    /// Returns when one more creation may be sent.
    func admit() async throws {
        while true {
            try await waitOutPause()
            guard let interval else { return }
            let now = clock.now
            tokens = min(burst, tokens + (now - refilled) / interval)
            refilled = now
            if tokens >= 1 {
                tokens -= 1
                return
            }
            try await clock.sleep(for: interval * (1 - tokens))
        }
    }

    /// Returns once no pause is in force.
    func waitOutPause() async throws {
        while pausedUntil > clock.now {
            try await clock.sleep(for: pausedUntil - clock.now)
        }
    }

    /// Holds every request of the run for `duration` from now (a longer pause in force stays).
    func pause(for duration: Duration) {
        _ = extend(for: duration)
    }

    /// `pause(for:)`, saying whether it held the run longer than the pause already in force.
    func extend(for duration: Duration) -> Bool {
        let until = clock.now + duration
        guard until > pausedUntil else { return false }
        pausedUntil = until
        return true
    }
}
