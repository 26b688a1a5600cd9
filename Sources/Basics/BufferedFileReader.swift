import Foundation

/// Reads a regular file front to back through a fixed buffer: what the streaming readers (JSON
/// objects, the digest cache) share. Only regular files are opened (not a link, when asked, nor
/// a device or a pipe, which a checkout could plant to make a read block or go elsewhere).
public final class BufferedFileReader {
    private let descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0, end = 0
    private var exhausted = false
    /// How many bytes were consumed since the start of the file.
    public private(set) var offset = 0

    /// Opens `path`; nil unless it is a regular file (followed through links unless
    /// `followingLinks` is false).
    public init?(path: String, followingLinks: Bool = true, bufferSize: Int = 1 << 20) {
        descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        buffer = [UInt8](repeating: 0, count: bufferSize)
        var info = stat()
        // Every property is set: returning nil runs `deinit`, which closes the file.
        guard descriptor >= 0, fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The bytes read and not yet consumed (indices are the buffer's).
    public var available: ArraySlice<UInt8> { buffer[start..<end] }

    /// Marks the first `count` available bytes as consumed.
    public func consume(_ count: Int) {
        start += count
        offset += count
    }

    /// Reads more after the bytes still available, moved to the front of the buffer; false at
    /// the end of the file, or when they fill the buffer already. The error is the `errno` of a
    /// failed read.
    public func fill() throws(FileError) -> Bool {
        guard !exhausted else { return false }
        if start > 0 {
            buffer.withUnsafeMutableBytes { bytes in
                if let base = bytes.baseAddress { memmove(base, base + start, end - start) }
            }
            (start, end) = (0, end - start)
        }
        guard end < buffer.count else { return false }
        let count = buffer.withUnsafeMutableBytes { bytes in
            SystemCall.uninterrupted { read(descriptor, bytes.baseAddress.map { $0 + end }, bytes.count - end) }
        }
        guard count >= 0 else { throw FileError(path: "", operation: "read", code: errno) }
        end += count
        exhausted = count == 0
        return count > 0
    }
}
