/// The waits between attempts: listed, or growing exponentially to a cap, each with a random share added.
public struct Backoff: Sendable, Equatable {
    /// How the wait before each retry is chosen.
    public enum Growth: Sendable, Equatable {
        /// `first`, then multiplied by `factor` before each further retry, never above `cap`.
        case exponential(first: Duration, factor: Double, cap: Duration)
        /// The waits in order; the last one again for retries beyond the list.
        case listed([Duration])
    }

    /// How the waits grow.
    public var growth: Growth
    /// The largest share of a wait added at random (0.1: up to 10% more), so clients that failed together do not retry together.
    public var jitter: Double

    /// A backoff growing as `growth` says, with up to `jitter` of each wait added at random.
    public init(_ growth: Growth, jitter: Double = 0) {
        self.growth = growth
        self.jitter = max(0, jitter.isFinite ? jitter : 0)
    }

    /// Doubling from one second to `cap`, with no jitter.
    public static func doubling(from first: Duration = .seconds(1), cap: Duration, jitter: Double = 0) -> Backoff {
        Backoff(.exponential(first: first, factor: 2, cap: cap), jitter: jitter)
    }

    /// The wait before retry number `retry` (1: the first retry), before jitter.
    public func base(beforeRetry retry: Int) -> Duration {
        let index = max(1, retry)
        switch growth {
        case .exponential(let first, let factor, let cap):
            var wait = first
            for _ in 1..<index {
                guard wait < cap else { break }
                wait = wait * factor
            }
            return min(wait, cap)
        case .listed(let waits):
            guard let last = waits.last else { return .zero }
            return index <= waits.count ? waits[index - 1] : last
        }
    }

    /// `wait` with up to `jitter` of it added, drawn from `random`.
    public func jittered(_ wait: Duration, using random: inout some RandomNumberGenerator) -> Duration {
        guard jitter > 0, wait > .zero else { return wait }
        return wait + wait * Double.random(in: 0...jitter, using: &random)
    }
}
