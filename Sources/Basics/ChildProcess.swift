import Foundation
import Synchronization

/// Runs a program with an argument array (never a shell): standard input given, standard output
/// and error collected, killed when it runs past its time or its caller gives up. The one
/// process runner of the tool.
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

    /// A program killed because its caller gave up on it.
    public struct Canceled: Error, Sendable {}

    /// Runs `arguments` (a path, or a name looked up in `PATH`) with `input` on standard input.
    public static func run(_ arguments: [String], input: Data = Data(), timeout: Duration) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(arguments, input: input, timeout: timeout) })
            }
        }
    }

    /// Runs `arguments` on the calling thread, which waits; `isCanceled` is asked every tenth of
    /// a second, and the program is killed as soon as it says yes.
    public static func runBlocking(
        _ arguments: [String], input: Data = Data(), timeout: Duration, isCanceled: @escaping @Sendable () -> Bool = { false }
    ) throws -> Outcome {
        guard let program = arguments.first else { throw CocoaError(.executableNotLoadable) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.contains("/") ? program : "/usr/bin/env")
        process.arguments = program.contains("/") ? Array(arguments.dropFirst()) : arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
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
        try? stdin.fileHandleForWriting.write(contentsOf: input)  // EPIPE: the program exited without reading it
        try? stdin.fileHandleForWriting.close()  // as above
        let deadline = ContinuousClock.now + timeout
        while group.wait(timeout: .now() + 0.1) == .timedOut {
            let canceled = isCanceled()
            guard canceled || ContinuousClock.now >= deadline else { continue }
            kill(process.processIdentifier, SIGKILL)
            // Not waiting for its output: a child it started may hold the pipes open.
            process.waitUntilExit()
            if canceled { throw Canceled() }
            throw TimedOut(timeout: timeout)
        }
        process.waitUntilExit()
        let collected = output.withLock { $0 }
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: collected.stdout, as: UTF8.self),
            stderr: String(decoding: collected.stderr, as: UTF8.self))
    }
}
