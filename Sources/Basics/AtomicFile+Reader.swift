import CLinux
import Foundation
import Synchronization

extension AtomicFile {
    /// `path`, a FIFO or another file written in place, opened for writing: at once when a
    /// process reads it, else once one opens it for reading, `longest` at most. The descriptor,
    /// or the `errno` of the failure (`ENXIO`: no process came to read it).
    static func openForWriting(_ path: String, waitingForAReader longest: Duration) -> Result<Int32, FileError> {
        let descriptor = SystemCall.openWithoutWaiting(path, O_WRONLY | O_TRUNC)
        guard descriptor < 0, errno == ENXIO else { return descriptor >= 0 ? .success(descriptor) : .failure(failure(path, errno)) }
        return openWhenRead(path, within: longest)
    }

    /// The FIFO at `path` opened for writing once a process opens it for reading, or `ENXIO`
    /// after `longest`. The open that waits runs on a thread of its own, which the kernel wakes
    /// when a reader comes (a reader that is starting, `cat fifo &`, has that long to open it).
    /// Given up, that open is ended by opening the same FIFO to read here a moment, and what it
    /// opened is closed: nothing is written, and no thread is left waiting.
    private static func openWhenRead(_ path: String, within longest: Duration) -> Result<Int32, FileError> {
        // The FIFO itself, not whatever the path names by the time the wait ends.
        let fifo = pipeline_open_path(path)
        guard fifo >= 0 else { return .failure(failure(path, errno)) }
        defer { close(fifo) }
        let node = "/proc/self/fd/\(fifo)"
        let state = Mutex<(opened: (descriptor: Int32, code: Int32)?, abandoned: Bool)>((nil, false))
        let done = WakeSignal()
        DedicatedThread.start("fifo-writer") {
            let descriptor = SystemCall.uninterrupted { open(node, O_WRONLY | O_CLOEXEC) }
            let code = errno
            let kept = state.withLock { state -> Bool in
                guard !state.abandoned else { return false }
                state.opened = (descriptor, code)
                return true
            }
            if !kept, descriptor >= 0 { close(descriptor) }
            done.signal()
        }
        _ = done.wait(atMost: longest)
        let opened = state.withLock { state in
            if state.opened == nil { state.abandoned = true }
            return state.opened
        }
        if let opened { return opened.descriptor >= 0 ? .success(opened.descriptor) : .failure(failure(path, opened.code)) }
        // No reader came: this one lets the waiting open through, to close what it opened.
        let reader = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if reader >= 0 {
            _ = done.wait(atMost: .seconds(10))
            close(reader)
        }
        return .failure(failure(path, ENXIO))
    }

    private static func failure(_ path: String, _ code: Int32) -> FileError {
        FileError(path: path, operation: "open", code: code, reason: code == ENXIO ? "it is a FIFO that no process reads" : nil)
    }
}
