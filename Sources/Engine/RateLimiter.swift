import Foundation
import Synchronization

/// A sliding-window limit on Assembly creations, answered like the hosted API: HTTP 429,
/// `RATE_LIMIT_REACHED` and `info.retryIn` seconds.
final class RateLimiter: Sendable {
    private let limit: Int
    private let window: TimeInterval
    private let recent = Mutex<[Date]>([])

    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// `nil` when the request may go ahead (and is counted); else seconds to wait.
    func admit(now: Date = Date()) -> Double? {
        recent.withLock { times in
            times.removeAll { now.timeIntervalSince($0) >= window }
            guard times.count >= limit, let oldest = times.first else {
                times.append(now)
                return nil
            }
            return max(0.1, (window - now.timeIntervalSince(oldest) * 1).rounded(.up))
        }
    }
}
