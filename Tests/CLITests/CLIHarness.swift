import Foundation
import CLI

/// Runs the CLI in-process and captures its output.
final class CLIHarness: @unchecked Sendable {
    private(set) var stdout = ""
    private(set) var stderr = ""

    static func run(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, stdout: String, stderr: String) {
        let harness = CLIHarness()
        let output = Output(out: { harness.stdout += $0 }, error: { harness.stderr += $0 })
        let status = await PipelineCLI.run(arguments, environment: environment, output: output)
        return (status, harness.stdout, harness.stderr)
    }
}
