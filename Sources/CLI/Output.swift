import Basics
import Foundation
import Synchronization

/// Where a command writes: standard output for results, standard error for diagnostics.
public final class Output: Sendable {
    private let writeOut: @Sendable (String) -> Void
    private let writeError: @Sendable (String) -> Void
    private let outFailure: @Sendable () -> Int32?
    /// Whether each stream is a terminal (colours are only ever automatic on one).
    let terminals: (out: Bool, error: Bool)
    private let palettes = Mutex<(out: Palette, error: Palette)>((.plain, .plain))

    /// Creates an output from two writers (tests capture, the tool writes to file descriptors);
    /// `failure` tells the `errno` of a failed write to standard output, if one failed.
    public init(
        out: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void, failure: @escaping @Sendable () -> Int32? = { nil },
        terminals: (out: Bool, error: Bool) = (false, false)
    ) {
        self.writeOut = out
        self.writeError = error
        self.outFailure = failure
        self.terminals = terminals
    }

    /// The process's standard output and standard error. A stream that cannot be written is
    /// dropped and the command still finishes its work; a reader that went away (`| head`) is
    /// no error, any other failure (a full disk) makes the command fail.
    public static let standard: Output = {
        let out = DescriptorWriter(STDOUT_FILENO)
        let error = DescriptorWriter(STDERR_FILENO)
        return Output(out: { out.write($0) }, error: { error.write($0) }, failure: { out.failure.flatMap { $0 == EPIPE ? nil : $0 } },
                      terminals: (isatty(STDOUT_FILENO) == 1, isatty(STDERR_FILENO) == 1))
    }()

    /// The `errno` of a failed write to standard output, other than a closed pipe.
    var writeFailure: Int32? { outFailure() }

    /// Writes to standard output.
    func out(_ text: String) { writeOut(text) }

    /// Writes to standard error.
    func error(_ text: String) { writeError(text) }

    /// The colours for standard output and standard error (none until `useColors`).
    var colors: (out: Palette, error: Palette) { palettes.withLock { $0 } }

    /// Turns colours on or off for each stream.
    func useColors(out: Bool, error: Bool) {
        palettes.withLock { $0 = (Palette(enabled: out), Palette(enabled: error)) }
    }

    /// Reports a failure on standard error: `pipeline: error: <message>`, then `hint: <hint>`.
    func failure(_ message: String, hint: String? = nil) {
        let palette = colors.error
        writeError("pipeline: \(palette.error("error:")) \(message)\n" + (hint.map { "  \(palette.hint("hint:")) \($0)\n" } ?? ""))
    }
}

/// Writes whole strings to a file descriptor; after the first failure (EPIPE, a full disk) it
/// writes nothing more, never raising or crashing.
final class DescriptorWriter: Sendable {
    private let descriptor: Int32
    private let failed = Mutex<Int32?>(nil)

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The `errno` of the first failed write.
    var failure: Int32? { failed.withLock { $0 } }

    func write(_ text: String) {
        failed.withLock { failed in
            guard failed == nil else { return }
            var text = text
            text.withUTF8 { bytes in
                failed = SystemCall.writeAll(UnsafeRawBufferPointer(bytes), to: descriptor)
            }
        }
    }
}
