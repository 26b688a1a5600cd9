import Foundation

extension AtomicFile {
    /// Writes what `produce` emits as `write(to:durable:_:)` does, unless the regular file at
    /// `path` already holds exactly those bytes: then it is left alone, its modification time too
    /// (as build tools expect of an output that did not change). The bytes are compared as they
    /// are emitted; at the first difference the new file is begun with the old file's equal part.
    public static func update(_ path: String, durable: Bool = true, _ produce: (_ emit: (Data) -> Void) throws -> Void) throws {
        // Non-blocking: opening a pipe to read would wait for a writer, which is this process.
        let old = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        var info = stat()
        guard old >= 0, fstat(old, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            if old >= 0 { close(old) }
            return try write(to: path, durable: durable, produce)
        }
        defer { close(old) }
        var comparison = Comparison(old: old)
        var writer: AtomicFileWriter?
        var failure: FileError?
        func begin() {
            do throws(FileError) {
                let started = try AtomicFileWriter(path: path, mode: mode_t(info.st_mode & 0o7777))
                try comparison.copyEqualPart(to: started)
                writer = started
            } catch {
                failure = FileError(path: path, operation: error.operation, code: error.code)
            }
        }
        try produce { data in
            guard failure == nil else { return }
            if writer == nil {
                if comparison.matches(data) { return }
                begin()
            }
            writer?.write(data)
        }
        if let failure { throw failure }
        if writer == nil {
            guard comparison.equal != Int(info.st_size) else { return }
            begin()  // the new content is a shorter beginning of the old
            if let failure { throw failure }
        }
        try writer?.commit(durable: durable)
    }

    /// The new content compared with the old file's, from the start.
    private struct Comparison {
        let old: Int32
        /// How many bytes from the start are the same in both.
        private(set) var equal = 0
        private var buffer = [UInt8](repeating: 0, count: 1 << 20)

        init(old: Int32) {
            self.old = old
        }

        /// Whether `data` is what the old file holds next; counted into `equal` when it is.
        mutating func matches(_ data: Data) -> Bool {
            var compared = 0
            while compared < data.count {
                let wanted = min(buffer.count, data.count - compared)
                let position = equal + compared
                let read = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { pread(old, bytes.baseAddress, wanted, off_t(position)) } }
                guard read == wanted else { return false }
                let same = data.withUnsafeBytes { new in
                    buffer.withUnsafeBytes { old in
                        guard let new = new.baseAddress, let old = old.baseAddress else { return false }
                        return memcmp(new + compared, old, wanted) == 0
                    }
                }
                guard same else { return false }
                compared += wanted
            }
            equal += compared
            return true
        }

        /// Writes the old file's first `equal` bytes to `writer`.
        mutating func copyEqualPart(to writer: AtomicFileWriter) throws(FileError) {
            var copied = 0
            while copied < equal {
                let wanted = min(buffer.count, equal - copied)
                let read = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { pread(old, bytes.baseAddress, wanted, off_t(copied)) } }
                guard read == wanted else { throw FileError(path: "", operation: "read", code: read < 0 ? errno : EIO) }
                buffer.withUnsafeBytes { writer.write(UnsafeRawBufferPointer(rebasing: $0[..<wanted])) }
                copied += wanted
            }
        }
    }
}
