import Foundation

/// Reads whole small files (manifests, policies, plans) with errors that name the file.
public enum FileReading {
    /// Reads at most `limit` bytes of `path`; a larger file is an error.
    public static func read(_ path: String, limit: Int = 16 << 20) throws -> Data {
        // Never waits on a FIFO with no writer (a state file planted as one reads as empty).
        let descriptor = SystemCall.openWithoutWaiting(path, O_RDONLY)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "open", code: errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileError(path: path, operation: "stat", code: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw FileError(path: path, operation: "read", code: EISDIR) }
        guard info.st_size <= limit else { throw FileError(path: path, operation: "read", code: EFBIG) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { Foundation.read(descriptor, bytes.baseAddress, bytes.count) } }
            if count < 0 { throw FileError(path: path, operation: "read", code: errno) }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit { throw FileError(path: path, operation: "read", code: EFBIG) }
        }
        return data
    }
}
