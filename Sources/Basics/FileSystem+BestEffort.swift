import Foundation

/// File-system calls for work that acts on what it can see and leaves the rest for next time
/// (sweeps, garbage collection, cleanups, watches): there a failure is no news, and these calls
/// say so once instead of each caller.
extension FileSystem {
    /// The names in `folder`, none when it cannot be listed: a folder that cannot be read holds
    /// nothing such work could act on, and the next sweep sees it again.
    public static func namesOrNone(in folder: String) -> [String] {
        do { return try names(in: folder) } catch { return [] }  // unreadable: nothing to act on
    }

    /// Removes `path` when it is there; a failure leaves only disk space used, which the next
    /// cleanup takes back.
    public static func cleanUp(_ path: String) {
        do { try removeIfPresent(path) } catch { return }  // what stays is only disk used
    }
}

extension Task where Success == Never, Failure == Never {
    /// Sleeps for `duration`; false when the task was cancelled first (a pause whose end is no
    /// news: the caller stops or goes on).
    public static func pause(for duration: Duration) async -> Bool {
        do { try await sleep(for: duration); return true } catch { return false }  // cancelled
    }
}
