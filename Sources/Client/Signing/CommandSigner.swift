import Foundation
import Wire

/// Runs a program with the params on standard input and reads the signature from standard
/// output. A non-zero exit, malformed output or a run past the timeout is an error that shows
/// what the program wrote to standard error.
public struct CommandSigner: ParamsSigner {
    /// The program and its arguments.
    public var arguments: [String]
    /// The longest the program may run.
    public var timeout: Duration

    /// Creates a command signer.
    public init(arguments: [String], timeout: Duration = .seconds(30)) {
        self.arguments = arguments
        self.timeout = timeout
    }

    /// Runs the program with `params` on standard input and returns what it printed.
    public func sign(_ params: String) async throws(SignerError) -> String {
        guard let program = arguments.first else { throw SignerError("the signing command is empty") }
        let name = (program as NSString).lastPathComponent
        let outcome: (status: Int32, stdout: String, stderr: String)
        do {
            outcome = try await Self.run(arguments, input: Data(params.utf8), timeout: timeout)
        } catch let error as SignerError {
            throw error
        } catch {
            throw SignerError("cannot run signing command '\(name)': \(error.localizedDescription)")
        }
        let stderr = outcome.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        let detail = stderr.isEmpty ? "" : "; it said: \(stderr.prefix(500))"
        guard outcome.status == 0 else {
            throw SignerError("signing command '\(name)' exited with status \(outcome.status)\(detail)")
        }
        let signature = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Signature.isWellFormed(signature) else {
            throw SignerError("signing command '\(name)' printed no valid signature (expected 'sha384:' and 96 hex digits)\(detail)")
        }
        return signature
    }

    private static func run(_ arguments: [String], input: Data, timeout: Duration) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0].contains("/") ? arguments[0] : "/usr/bin/env")
        process.arguments = arguments[0].contains("/") ? Array(arguments.dropFirst()) : arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let group = DispatchGroup()
                let output = OutputBox()
                group.enter()
                DispatchQueue.global().async { output.stdout = stdout.fileHandleForReading.readDataToEndOfFile(); group.leave() }
                group.enter()
                DispatchQueue.global().async { output.stderr = stderr.fileHandleForReading.readDataToEndOfFile(); group.leave() }
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try? stdin.fileHandleForWriting.close()
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                if group.wait(timeout: .now() + seconds) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    continuation.resume(throwing: SignerError(
                        "signing command '\((arguments[0] as NSString).lastPathComponent)' did not answer within \(Int(seconds)) s"))
                    return
                }
                process.waitUntilExit()
                continuation.resume(returning: (
                    process.terminationStatus, String(decoding: output.stdout, as: UTF8.self), String(decoding: output.stderr, as: UTF8.self)))
            }
        }
    }
}

private final class OutputBox: @unchecked Sendable {
    var stdout = Data()
    var stderr = Data()
}
