import Basics
import Foundation

/// What the tool says before or around a command: help, the version, the manual page, a command
/// line it cannot understand, a failure no command caught, and an output it could not write.
struct ToolView: Sendable {
    /// Where the tool writes.
    let output: Output

    /// Help (the tool's or a command's) on standard output, as asked for.
    func help(_ text: String) {
        output.out(text)
    }

    /// The tool's help on standard error, when no command was given.
    func helpForNoCommand(_ text: String) {
        output.error(text)
    }

    /// `--version`.
    func version(_ version: String) {
        output.out("pipeline \(version)\n")
    }

    /// `help --man`: the manual page.
    func manual(_ page: String) {
        output.out(page)
    }

    /// A command line that cannot be understood: the error, then the command's usage (or the tool's hint).
    func usage(_ error: UsageError, spec: CommandSpec?) {
        output.failure("\(error.message)")
        if let spec {
            output.error("Usage: \(spec.usage)\nSee 'pipeline \(spec.name) --help'.\n")
        } else {
            output.error("See 'pipeline --help'.\n")
        }
    }

    /// A command found its manifest in a parent folder.
    func usingManifest(_ path: String) {
        output.error("pipeline: using \(path)\n")
    }

    /// A failure no command caught.
    func failure(_ error: any Error) {
        output.failure("\(error)")
    }

    /// Standard output could not be written (`errno`).
    func writeFailed(_ code: Int32) {
        output.failure("cannot write to standard output: \(String(cString: strerror(code)))")
    }
}
