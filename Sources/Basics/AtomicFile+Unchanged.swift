import Foundation

extension AtomicFile {
    /// Writes what `produce` emits as `write(to:durable:_:)` does, unless the regular file at
    /// `path` already holds exactly those bytes: then it is left alone, its modification time too
    /// (as build tools expect of an output that did not change), but for permissions a new file
    /// would not have (`narrowed`). The bytes are compared as they
    /// are emitted; at the first difference the new file is begun with the old file's equal part.
    /// Returns what `fstat` says of the regular file left at `path` (`nil` for one written in place).
    @discardableResult
    public static func update(_ path: String, durable: Bool = true, _ produce: (_ emit: (Data) -> Void) throws -> Void) throws -> stat? {
        // Non-blocking: opening a pipe to read would wait for a writer, which is this process.
        let old = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        var info = stat()
        guard old >= 0, fstat(old, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            if old >= 0 { close(old) }
            return try write(to: path, durable: durable, produce)
        }
        defer { close(old) }
        // How many bytes from the start are the same in the old content and the new.
        var equal = 0
        func matches(_ data: Data) -> Bool {
            var same = true
            do {
                try SystemCall.read(old, equal..<equal + data.count) { bytes, offset in
                    same = data.withUnsafeBytes { (new: UnsafeRawBufferPointer) -> Bool in
                        guard let new = new.baseAddress, let read = bytes.baseAddress else { return false }
                        return memcmp(new + (offset - equal), read, bytes.count) == 0
                    }
                    return same
                }
            } catch {
                return false  // the old file ends first
            }
            if same { equal += data.count }
            return same
        }
        var writer: AtomicFileWriter?
        var failure: FileError?
        func begin() {
            do throws(FileError) {
                let started = try AtomicFileWriter(path: path, mode: narrowed(info.st_mode))
                try SystemCall.read(old, 0..<equal) { bytes, _ in
                    started.write(bytes)
                    return true
                }
                writer = started
            } catch {
                failure = FileError(path: path, operation: error.operation, code: error.code)
            }
        }
        try produce { data in
            guard failure == nil else { return }
            if writer == nil {
                if matches(data) { return }
                begin()
            }
            writer?.write(data)
        }
        if let failure { throw failure }
        if writer == nil, equal == Int(info.st_size) {
            // Left as it is, but for permissions a file written now would not get.
            narrowPermissions(of: old)
            fstat(old, &info)
            return info
        }
        if writer == nil {
            begin()  // the new content is a shorter beginning of the old
            if let failure { throw failure }
        }
        return try writer?.commit(durable: durable)
    }
}
