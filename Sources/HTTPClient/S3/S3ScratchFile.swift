import Basics
import Foundation

/// The blocking file work of resumable uploads' scratch files: byte ranges copied, sizes read.
enum S3ScratchFile {
    /// Appends `length` bytes of the file at `source` from `offset` to the file at `target` (made when missing).
    static func append(_ source: String, offset: Int64, length: Int64, to target: String) throws(FileError) {
        let input = SystemCall.uninterrupted { open(source, O_RDONLY | O_CLOEXEC) }
        guard input >= 0 else { throw FileError(path: source, operation: "open", code: errno) }
        defer { close(input) }
        let output = SystemCall.uninterrupted { open(target, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        guard output >= 0 else { throw FileError(path: target, operation: "open", code: errno) }
        defer { close(output) }
        var failure: Int32?
        do {
            try SystemCall.read(input, Int(offset)..<Int(offset + length)) { buffer, _ in
                failure = SystemCall.writeAll(buffer, to: output)
                return failure == nil
            }
        } catch {
            throw FileError(path: source, operation: "read", code: error.code)
        }
        if let failure { throw FileError(path: target, operation: "write", code: failure) }
    }

    /// The size of the file at `path`; nil when there is none.
    static func size(of path: String) -> Int64? {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : nil
    }

    /// Cuts the file at `path` to `size` bytes.
    static func truncate(_ path: String, to size: Int64) throws(FileError) {
        guard Glibc.truncate(path, off_t(size)) == 0 else { throw FileError(path: path, operation: "truncate", code: errno) }
    }
}
