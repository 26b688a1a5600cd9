import Foundation

/// One engine per data folder: an exclusive `flock` on `<data>/engine.lock`, held while the engine
/// runs and released by the kernel if its process dies. Two engines on one folder would each keep
/// their own view of its Assemblies and Templates (and create duplicates).
final class DataFolderLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock; when another engine holds it, calls `waiting` and waits for it if `wait`
    /// (until `stop` says to give up: then `WaitInterrupted`), else throws `DataFolderInUse`.
    init(folder: String, wait: Bool, waiting: () -> Void, stop: () -> Bool = { false }) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let descriptor = open(folder + "/engine.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw LockError(message: "cannot open '\(folder)/engine.lock': \(String(cString: strerror(errno)))") }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard wait else {
                close(descriptor)
                throw DataFolderInUse(folder: folder)
            }
            waiting()
            // Polled, not blocked on: a Ctrl-C meanwhile must end the wait at once.
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                if stop() {
                    close(descriptor)
                    throw WaitInterrupted()
                }
                usleep(100_000)
            }
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Lets the next engine in (the descriptor is closed with the lock).
    func release() { flock(descriptor, LOCK_UN) }

    /// Why the lock file could not be opened.
    struct LockError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// Waiting for the data folder was given up.
public struct WaitInterrupted: Error, CustomStringConvertible {
    /// What happened.
    public var description: String { "interrupted while waiting for the data folder" }
}

/// Another engine holds the data folder.
public struct DataFolderInUse: Error, CustomStringConvertible {
    /// The folder.
    public var folder: String

    /// What is wrong.
    public var description: String { "another engine is using the data folder '\(folder)' (a pipeline serve, or another command's embedded engine)" }
}
