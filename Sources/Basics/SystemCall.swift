import Foundation

/// The one place system calls are restarted after a signal: callers never test for EINTR.
public enum SystemCall {
    /// `call`'s result, calling it again for as long as a signal interrupts it (`EINTR`); a
    /// failure's `errno` is left for the caller to read.
    public static func uninterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// Writes every byte of `buffer` to `descriptor` (at `offset` with `pwrite`, else where the
    /// file stands); the `errno` of the first failure, if any (`EIO` for a write that took nothing).
    public static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int64? = nil) -> Int32? {
        guard let base = buffer.baseAddress else { return nil }
        var done = 0
        while done < buffer.count {
            let written = uninterrupted {
                if let offset { return pwrite(descriptor, base + done, buffer.count - done, off_t(offset + Int64(done))) }
                return Foundation.write(descriptor, base + done, buffer.count - done)
            }
            guard written > 0 else { return written < 0 ? errno : EIO }
            done += written
        }
        return nil
    }
}
