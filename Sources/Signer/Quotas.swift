import Foundation
import Basics
import Synchronization

/// Signatures per caller in a sliding window.
final class Quotas: Sendable {
    private let recent = Mutex<[String: [Date]]>([:])

    /// `nil` when `caller` may have one more signature now (and it is counted); else seconds to wait.
    func admit(_ caller: String, quota: (count: Int, window: TimeInterval)?, now: Date = Date()) -> Int? {
        take(caller, quota: quota, now: now, counting: true)
    }

    /// What `admit` would answer, without counting: checked before work a refused caller should not cause.
    func wait(_ caller: String, quota: (count: Int, window: TimeInterval)?, now: Date = Date()) -> Int? {
        take(caller, quota: quota, now: now, counting: false)
    }

    private func take(_ caller: String, quota: (count: Int, window: TimeInterval)?, now: Date, counting: Bool) -> Int? {
        guard let quota else { return nil }
        return recent.withLock { all -> Int? in
            var times = (all[caller] ?? []).filter { now.timeIntervalSince($0) < quota.window }
            defer { all[caller] = times }
            guard times.count >= quota.count, let oldest = times.first else {
                if counting { times.append(now) }
                return nil
            }
            return max(1, Int((quota.window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// `100/1h` as (100, 3600).
    static func parse(_ text: String) -> (count: Int, window: TimeInterval)? {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let window = DurationText.parse(parts[1]) else { return nil }
        return (count, TimeInterval(window.components.seconds))
    }
}
