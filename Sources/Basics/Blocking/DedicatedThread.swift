import Foundation

/// A named thread of its own, for a loop that lives as long as what it serves (the HTTP client's
/// libcurl loop, the signal reader, the handoff's accept loop) or for one blocking call that only
/// an event ends (an `open` of a FIFO waiting for its reader, a `flock` waiting for its holder).
/// Work that comes and goes uses a `BlockingPool` instead.
public enum DedicatedThread {
    /// Starts `body` on a new thread called `name`; the thread ends when `body` returns.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
