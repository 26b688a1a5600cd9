import Foundation
import Synchronization

/// Where a command writes: standard output for results, standard error for diagnostics.
public final class Output: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeError: (String) -> Void

    /// Creates an output from two writers (tests capture, the tool writes to file descriptors).
    public init(out: @escaping (String) -> Void, error: @escaping (String) -> Void) {
        self.writeOut = out
        self.writeError = error
    }

    /// The process's standard output and standard error. A stream that cannot be written (a
    /// reader that went away: `| head`) is dropped quietly; the command still finishes its work.
    public static let standard: Output = {
        let out = DescriptorWriter(STDOUT_FILENO)
        let error = DescriptorWriter(STDERR_FILENO)
        return Output(out: { out.write($0) }, error: { error.write($0) })
    }()

    /// Writes to standard output.
    func out(_ text: String) { writeOut(text) }

    /// Writes to standard error.
    func error(_ text: String) { writeError(text) }
}

/// Writes whole strings to a file descriptor; after the first failure (EPIPE, a full disk) it
/// writes nothing more, never raising or crashing.
final class DescriptorWriter: Sendable {
    private let descriptor: Int32
    private let failed = Mutex(false)

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ text: String) {
        failed.withLock { failed in
            guard !failed else { return }
            var text = text
            text.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count, let base = bytes.baseAddress {
                    let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failed = true
                        return
                    }
                    offset += written
                }
            }
        }
    }
}
