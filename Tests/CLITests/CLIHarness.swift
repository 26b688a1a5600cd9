import Foundation
import CLI
import Synchronization

/// Runs the CLI in-process and captures its output. Concurrent Assemblies report at once, so
/// the captured text is guarded.
final class CLIHarness: Sendable {
    private let captured = Mutex<(stdout: String, stderr: String)>(("", ""))

    /// Runs `arguments`; `said` sees each piece of standard error as it is written (a test waits
    /// on what the command says rather than for a fixed time).
    static func run(
        _ arguments: [String], environment: [String: String] = [:], said: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> (status: Int32, stdout: String, stderr: String) {
        let harness = CLIHarness()
        let output = Output(
            out: { text in harness.captured.withLock { $0.stdout += text } },
            error: { text in
                harness.captured.withLock { $0.stderr += text }
                said(text)
            })
        let status = await PipelineCLI.run(arguments, environment: environment, output: output)
        let (stdout, stderr) = harness.captured.withLock { $0 }
        return (status, stdout, stderr)
    }
}
