import Foundation
import CLI
import Synchronization

/// Runs the CLI in-process and captures its output. Concurrent Assemblies report at once, so
/// the captured text is guarded.
final class CLIHarness: Sendable {
    private let captured = Mutex<(stdout: String, stderr: String)>(("", ""))

    static func run(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, stdout: String, stderr: String) {
        let harness = CLIHarness()
        let output = Output(
            out: { text in harness.captured.withLock { $0.stdout += text } },
            error: { text in harness.captured.withLock { $0.stderr += text } })
        let status = await PipelineCLI.run(arguments, environment: environment, output: output)
        let (stdout, stderr) = harness.captured.withLock { $0 }
        return (status, stdout, stderr)
    }
}
