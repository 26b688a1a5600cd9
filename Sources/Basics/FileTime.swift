import Foundation

/// File times as nanoseconds since 1970, the one form the tool compares them in.
public enum FileTime {
    /// `time` in nanoseconds, held at the limits of `Int64` (years before 1678 or after 2262,
    /// which a file's times may claim) instead of overflowing.
    public static func nanoseconds(_ time: timespec) -> Int64 {
        let (seconds, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return time.tv_sec < 0 ? Int64.min : Int64.max }
        let (total, carried) = seconds.addingReportingOverflow(Int64(time.tv_nsec))
        return carried ? Int64.max : total
    }
}
