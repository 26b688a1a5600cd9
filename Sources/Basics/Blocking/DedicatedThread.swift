import CLinux
import Foundation

/// A named thread of its own, for a loop that lives as long as what it serves (the HTTP client's
/// libcurl loop, the signal reader, the handoff's accept loop) or for one blocking call that only
/// an event ends (an `open` of a FIFO waiting for its reader, a `flock` waiting for its holder).
/// Work that comes and goes uses a `BlockingPool` instead.
public enum DedicatedThread {
    /// Starts `body` on a new thread called `name` (its first 15 bytes: Linux keeps no more);
    /// the thread ends when `body` returns.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        // Named from the thread itself: Foundation gives the kernel no name set before the start.
        let thread = Thread {
            pipeline_name_thread(name)
            body()
        }
        thread.start()
    }
}
