import Basics
import Foundation
import Wire

/// Runs a program for a robot (ffmpeg, exiftool, jpegtran, optipng): an argument array, never a
/// shell; a time limit; killed as soon as the Assembly is canceled. A failure becomes `code` with
/// the program's first lines, where the engine's own paths are replaced by the file's name.
enum RobotTool {
    /// What the program printed on standard output.
    static func run(
        _ command: [String], for file: AssemblyFile, action: String, code: APIErrorCode, context: RobotContext?,
        timeout: Duration, package: String, hiding paths: [String] = []
    ) throws(RobotError) -> String {
        let outcome: ChildProcess.Outcome
        var isCanceled: @Sendable () -> Bool = { false }
        if let context { isCanceled = context.isCanceled }
        do {
            outcome = try ChildProcess.runBlocking(command, timeout: timeout, isCanceled: isCanceled)
        } catch is ChildProcess.TimedOut {
            throw RobotError(code: code, message: "'\(file.name)' took longer than \(timeout.components.seconds) seconds")
        } catch is ChildProcess.Canceled {
            throw RobotError.canceled
        } catch {
            throw RobotError(code: .internalCommandError, message: "cannot start \(command[0]): \(error)")
        }
        if outcome.status == 127 {
            throw RobotError(code: .internalCommandError, message: "\(command[0]) is not installed; install it: apt-get install \(package)")
        }
        guard outcome.status == 0 else {
            var said = outcome.stderr.split(separator: "\n").prefix(3).joined(separator: "; ")
            for path in [file.path] + paths { said = said.replacingOccurrences(of: path, with: file.name) }
            // ffmpeg's component tags carry memory addresses ("[mov @ 0x55d...]"): of no use to the caller.
            said = said.replacingOccurrences(of: #" @ 0x[0-9a-f]+"#, with: "", options: .regularExpression)
            let detail = TerminalText.printable(String(said.trimmingCharacters(in: .whitespaces).prefix(400)))
            throw RobotError(code: code, message: "cannot \(action) '\(file.name)': \(detail.isEmpty ? "\(command[0]) failed (exit status \(outcome.status))" : detail)")
        }
        return outcome.stdout
    }
}
