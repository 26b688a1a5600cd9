import Basics
import Foundation
import Synchronization

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
            do { try Self.waitForLock(descriptor, folder: folder, stop: stop) } catch {
                close(descriptor)
                throw error
            }
        }
        self.descriptor = descriptor
    }

    /// Takes the lock on `descriptor` the moment its holder lets go: a blocking `flock` on a thread
    /// of its own, on a duplicate (the same open file, so the lock taken is this descriptor's),
    /// while this thread asks `stop` every tenth of a second (a Ctrl-C must end the wait at once).
    /// Given up, the duplicate is closed as soon as its `flock` returns: with this descriptor
    /// closed by then, a lock taken too late goes at once.
    private static func waitForLock(_ descriptor: Int32, folder: String, stop: () -> Bool) throws {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw LockError(message: "cannot wait for '\(folder)/engine.lock': \(String(cString: strerror(errno)))") }
        let failure = Atomic<Int32>(0)
        let taken = WakeSignal()
        DedicatedThread.start("data-folder-lock") {
            if SystemCall.uninterrupted({ flock(duplicate, LOCK_EX) }) != 0 { failure.store(errno, ordering: .relaxed) }
            close(duplicate)
            taken.signal()
        }
        while !taken.wait(atMost: .milliseconds(100)) {
            if stop() { throw WaitInterrupted() }
        }
        let code = failure.load(ordering: .relaxed)
        guard code == 0 else { throw LockError(message: "cannot lock '\(folder)/engine.lock': \(String(cString: strerror(code)))") }
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
