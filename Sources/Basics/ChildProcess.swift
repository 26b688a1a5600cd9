import Foundation
import Synchronization

/// Runs a program with an argument array (never a shell): standard input given, standard output
/// and error collected, killed when it runs past its time. The one process runner of the tool.
public enum ChildProcess {
    /// How a program ended.
    public struct Outcome: Sendable, Equatable {
        /// The exit status.
        public var status: Int32
        /// What it printed on standard output.
        public var stdout: String
        /// What it printed on standard error.
        public var stderr: String
    }

    /// A program that ran past its time and was killed.
    public struct TimedOut: Error, Sendable {
        /// The time it had.
        public var timeout: Duration
    }

    /// Runs `arguments` (a path, or a name looked up in `PATH`) with `input` on standard input.
    public static func run(_ arguments: [String], input: Data = Data(), timeout: Duration) async throws -> Outcome {
        guard let program = arguments.first else { throw CocoaError(.executableNotLoadable) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.contains("/") ? program : "/usr/bin/env")
        process.arguments = program.contains("/") ? Array(arguments.dropFirst()) : arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let group = DispatchGroup()
                let output = Mutex((stdout: Data(), stderr: Data()))
                group.enter()
                DispatchQueue.global().async {
                    let data = stdout.fileHandleForReading.readDataToEndOfFile()
                    output.withLock { $0.stdout = data }
                    group.leave()
                }
                group.enter()
                DispatchQueue.global().async {
                    let data = stderr.fileHandleForReading.readDataToEndOfFile()
                    output.withLock { $0.stderr = data }
                    group.leave()
                }
                // A program that exits without reading gives EPIPE here (SIGPIPE is ignored by the tool).
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try? stdin.fileHandleForWriting.close()
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                if group.wait(timeout: .now() + seconds) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    continuation.resume(throwing: TimedOut(timeout: timeout))
                    return
                }
                process.waitUntilExit()
                let collected = output.withLock { $0 }
                continuation.resume(returning: Outcome(
                    status: process.terminationStatus, stdout: String(decoding: collected.stdout, as: UTF8.self),
                    stderr: String(decoding: collected.stderr, as: UTF8.self)))
            }
        }
    }
}
