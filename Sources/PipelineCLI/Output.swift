import Foundation

/// Where a command writes: standard output for results, standard error for diagnostics.
public final class Output: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeError: (String) -> Void

    /// Creates an output from two writers (tests capture, the tool writes to file descriptors).
    public init(out: @escaping (String) -> Void, error: @escaping (String) -> Void) {
        self.writeOut = out
        self.writeError = error
    }

    /// The process's standard output and standard error.
    public static let standard = Output(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        error: { FileHandle.standardError.write(Data($0.utf8)) })

    /// Writes to standard output.
    func out(_ text: String) { writeOut(text) }

    /// Writes to standard error.
    func error(_ text: String) { writeError(text) }
}
