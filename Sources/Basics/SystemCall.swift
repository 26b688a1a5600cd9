import CLinux
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

    /// Opens `path` with `flags` without waiting: a FIFO no process holds open on the other side
    /// (one planted in a restored cache) is never waited on. Once open, the descriptor blocks as
    /// usual, so a pipe with a live other end (`<(…)`, `>(…)`) reads and writes as ever; a FIFO
    /// with no writer reads as empty, one with no reader fails to open (ENXIO).
    public static func openWithoutWaiting(_ path: String, _ flags: Int32) -> Int32 {
        let descriptor = open(path, flags | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        return descriptor
    }

    /// Whether `descriptor` was opened for reading (not write-only, not `O_PATH`).
    public static func isOpenForReading(_ descriptor: Int32) -> Bool { pipeline_open_for_reading(descriptor) != 0 }

    /// Copies up to `count` bytes from `source` at `sourceOffset` to `target` at `targetOffset` in
    /// the kernel (`copy_file_range`): the count copied, 0 at the end of `source`, or the `errno`
    /// (`EXDEV`, `EINVAL`: files this cannot copy between; read and write instead).
    public static func copyRange(from source: Int32, at sourceOffset: Int64, to target: Int32, at targetOffset: Int64, count: Int) -> Result<Int, FileError> {
        var from = off_t(sourceOffset), to = off_t(targetOffset)
        let copied = pipeline_copy_file_range(source, &from, target, &to, count)
        return copied >= 0 ? .success(copied) : .failure(FileError(path: "", operation: "copy_file_range", code: errno))
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

    /// Reads `descriptor`'s bytes in `range` at their offsets (the file position is not moved),
    /// handing them to `body` with the offset of each buffer's first byte until it returns false;
    /// the error is a failed read, or `EIO` for one that found the file ending first.
    public static func read(
        _ descriptor: Int32, _ range: Range<Int>, _ body: (UnsafeRawBufferPointer, Int) -> Bool
    ) throws(FileError) {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: min(max(range.count, 1), 1 << 20), alignment: 8)
        defer { chunk.deallocate() }
        var position = range.lowerBound
        while position < range.upperBound {
            let count = uninterrupted { pread(descriptor, chunk.baseAddress, min(chunk.count, range.upperBound - position), off_t(position)) }
            guard count > 0 else { throw FileError(path: "", operation: "read", code: count == 0 ? EIO : errno) }
            guard body(UnsafeRawBufferPointer(rebasing: chunk[..<count]), position) else { return }
            position += count
        }
    }
}
