import Basics
import Foundation
import Synchronization

/// A sliding-window limit on Assembly creations, answered like the hosted API: HTTP 429,
/// `RATE_LIMIT_REACHED` and `info.retryIn` seconds.
final class RateLimiter: CreationLimit {
    private let limit: Int
    private let window: TimeInterval
    private let recent = Mutex<[Date]>([])
    private let clock: any MonotonicClock

    init(limit: Int, window: TimeInterval, clock: any MonotonicClock = SystemClock()) {
        self.limit = limit
        self.window = window
        self.clock = clock
    }

    /// `nil` when the request may go ahead (and is counted); else seconds to wait.
    func admit() -> Double? {
        let now = clock.date
        return recent.withLock { times in
            times.removeAll { now.timeIntervalSince($0) >= window }
            guard times.count >= limit, let oldest = times.first else {
                times.append(now)
                return nil
            }
            return max(0.1, (window - now.timeIntervalSince(oldest) * 1).rounded(.up))
        }
    }
}
