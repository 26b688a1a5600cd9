/// One caller's retries: how many attempts in all, the backoff between them, and the bounds put on
/// a wait the other side states (`retryIn`, `Retry-After`), which replaces the backoff's.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var attempts: Int
    /// The waits when the other side states none.
    public var backoff: Backoff
    /// The longest stated wait honoured; a longer one is cut to it.
    public var longestStatedWait: Duration
    /// The shortest wait after a rate limit, stated or not.
    public var shortestRateLimitWait: Duration
    /// Whether a stated wait shorter than the backoff's is waited for the backoff's (S3's rule).
    public var statedWaitExtendsBackoff: Bool

    /// A policy of `attempts` in all, waiting as `backoff` says unless a wait is stated.
    public init(attempts: Int, backoff: Backoff, longestStatedWait: Duration = .seconds(3600), shortestRateLimitWait: Duration = .zero,
                statedWaitExtendsBackoff: Bool = false) {
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.longestStatedWait = longestStatedWait
        self.shortestRateLimitWait = shortestRateLimitWait
        self.statedWaitExtendsBackoff = statedWaitExtendsBackoff
    }

    /// What a failed attempt said about waiting.
    public struct Advice: Sendable, Equatable {
        /// The wait the other side asked for, if any (zero: at once; `nil` or less than zero: none).
        public var stated: Duration?
        /// Whether the failure was a rate limit (`shortestRateLimitWait` applies).
        public var isRateLimit: Bool

        /// Advice stating `stated` (if any), for a rate limit or not.
        public init(stated: Duration? = nil, isRateLimit: Bool = false) {
            self.stated = stated
            self.isRateLimit = isRateLimit
        }

        /// Advice stating `seconds` (a `retryIn` or `Retry-After`), if it is a number, zero or more.
        public init(statedSeconds seconds: Double?, isRateLimit: Bool = false) {
            self.init(stated: seconds.flatMap { $0.isFinite && $0 >= 0 ? Duration.milliseconds(Int(min($0, 1e9) * 1000)) : nil },
                      isRateLimit: isRateLimit)
        }

        /// No stated wait: the backoff's.
        public static let none = Advice()
    }

    /// The wait after attempt number `attempt` (1: the first) failed, or nil when it was the last:
    /// the stated wait within `longestStatedWait` (never below the backoff's when
    /// `statedWaitExtendsBackoff`), else the backoff's, at least `shortestRateLimitWait` after a rate
    /// limit, with jitter drawn from `random`.
    public func wait(afterAttempt attempt: Int, advice: Advice = .none, using random: inout some RandomNumberGenerator) -> Duration? {
        guard attempt < attempts else { return nil }
        let backedOff = backoff.base(beforeRetry: attempt)
        var wait = advice.stated.flatMap { $0 >= .zero ? min($0, longestStatedWait) : nil }.map { statedWaitExtendsBackoff ? max($0, backedOff) : $0 } ?? backedOff
        if advice.isRateLimit { wait = max(wait, shortestRateLimitWait) }
        return backoff.jittered(wait, using: &random)
    }

    /// `wait(afterAttempt:advice:using:)` with the system's random numbers.
    public func wait(afterAttempt attempt: Int, advice: Advice = .none) -> Duration? {
        var random = SystemRandomNumberGenerator()
        return wait(afterAttempt: attempt, advice: advice, using: &random)
    }

    /// Runs `operation` until it succeeds, fails in a way `advice` does not retry (nil), or the
    /// attempts are spent (then its last failure is thrown), waiting on `clock` between attempts.
    public func run<T: Sendable>(
        on clock: any MonotonicClock, advice: (any Error) -> Advice?, _ operation: () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                guard let said = advice(error), let pause = wait(afterAttempt: attempt, advice: said) else { throw error }
                try await clock.sleep(for: pause)
                attempt += 1
            }
        }
    }
}
