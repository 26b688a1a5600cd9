import Basics
import Foundation

/// Keeps two runs from sharing one run state: held while a run goes on, given back when the value
/// goes away or the process ends in any way (an advisory `flock`, which the kernel drops even
/// after `kill -9`).
public final class RunLock: Sendable {
    private let descriptor: Int32

    /// A run of the same manifest (and shard) holds the lock.
    public struct Held: Error, CustomStringConvertible {
        /// The lock file.
        public var path: String

        /// Says what to do.
        public var description: String {
            "another 'pipeline run' of this manifest (and shard) is running; wait for it to end, or stop it (its lock is \(path))"
        }
    }

    /// Takes the lock at `path` without waiting.
    init(path: String) throws {
        try FileManager.default.createDirectory(atPath: FolderPath.of(path), withIntermediateDirectories: true)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "open", code: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw Held(path: path) }
            throw FileError(path: path, operation: "lock", code: code)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}

extension Workspace {
    /// The lock of a run (or of one shard): shards run side by side, the same one twice does not.
    public func lockRun(shard: (index: Int, count: Int)?) throws -> RunLock {
        try refuseLinks()
        return try RunLock(path: runStateFile(shard: shard) + ".lock")
    }
}
