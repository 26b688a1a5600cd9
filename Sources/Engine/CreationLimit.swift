/// A limit on Assembly creations per window, answered 429 `RATE_LIMIT_REACHED`: one engine's
/// (`RateLimiter`) or shared by every engine on a database (`SharedCreationLimit`).
protocol CreationLimit: Sendable {
    /// `nil` when a creation may go ahead (and is counted); else seconds to wait.
    func admit() -> Double?
}
