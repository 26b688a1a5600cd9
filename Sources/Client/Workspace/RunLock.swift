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

extension Workspace {
    /// Whether a run of this manifest (any shard) holds its lock now; `nil` when the kernel's lock
    /// table cannot be read. Read from `/proc/locks`, so looking never takes a lock that a run
    /// starting at that moment needs.
    public func runIsGoingOn() -> Bool? {
        guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }  // no /proc: unknown
        // Each lock's file as `major:minor:inode`, the device numbers in hexadecimal.
        let held = Set(table.split(separator: "\n").compactMap { line -> Substring? in
            let fields = line.split(separator: " ")
            guard fields.contains("FLOCK"), !fields.contains("->") else { return nil }
            return fields.first { $0.split(separator: ":").count == 3 }
        })
        guard let names = try? FileSystem.names(in: manifestStateDirectory) else { return nil }  // unreadable: unknown
        return names.contains { name in
            var info = stat()
            guard name.hasSuffix(".lock"), lstat(manifestStateDirectory + "/" + name, &info) == 0 else { return false }
            let device = UInt64(info.st_dev)
            let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
            let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
            let key = String(format: "%02x:%02x:%llu", major, minor, UInt64(info.st_ino))
            return held.contains(Substring(key))
        }
    }
}
