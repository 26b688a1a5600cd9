import Foundation

/// Refuses writes that would leave the data folder's file system with less than `reserve` bytes
/// free, so a full disk gets a clear 507 before any byte is written instead of a half-stored file.
struct DiskSpace: Sendable {
    let directory: String
    let reserve: Int64

    /// Bytes free for an unprivileged writer; `nil` when the file system cannot be asked.
    func available() -> Int64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The message of a 507 answer.
    static let fullMessage = "the engine's data folder is nearly full; free some space and retry"

    /// Whether `length` more bytes (a `Content-Length`; unknown counts as none) would leave too little free.
    func isShort(forBody length: String?) -> Bool {
        let needed = Int64(length ?? "") ?? 0
        guard let available = available() else { return false }
        return available - needed < reserve
    }
}
