import Basics
import Foundation

/// The media tools tests make and read files with (ffmpeg, ffprobe, exiftool; scripts/setup.sh
/// installs them).
public enum MediaTool {
    /// A tool that did not succeed, with what it said.
    public struct Failure: Error, CustomStringConvertible {
        /// The command and its standard error.
        public var description: String
    }

    /// What `command` printed on standard output; `Failure` when it exits with another status than 0.
    public static func output(_ command: [String]) throws -> String {
        let outcome = try ChildProcess.runBlocking(command, timeout: .seconds(60))
        guard outcome.status == 0 else {
            throw Failure(description: "\(command[0]) failed (scripts/setup.sh installs it): \(outcome.stderr)")
        }
        return outcome.stdout
    }
}
