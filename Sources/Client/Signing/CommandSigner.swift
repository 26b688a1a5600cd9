import APIClients
import Basics
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
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(arguments, input: Data(params.utf8), timeout: timeout, environment: .inherited)
        } catch is ChildProcess.TimedOut {
            throw SignerError("signing command '\(name)' did not answer within \(Int(timeout.components.seconds)) s")
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
}
