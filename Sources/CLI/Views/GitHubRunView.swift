import Basics
import Client
import Foundation

/// A run for people in a GitHub Actions log: the human view, with an error annotation for each
/// failed Assembly and the Assemblies grouped by job in the summary.
struct GitHubRunView: RunView {
    let human: HumanRunView
    let output: Output

    func show(_ event: RunEvent) {
        human.show(event)
        if case .finished(let entry) = event, !entry.isCompleted, !entry.isPending {
            output.error("::error title=Assembly failed::" + DiagnosticRenderer.workflowData("\(entry.job) \(entry.planID): \(entry.status) \(entry.message ?? "")") + "\n")
        }
    }

    func tick() { human.tick() }
    func resized() { human.resized() }
    func clearLine() { human.clearLine() }

    func summary(_ results: RunResults, resultsPath: String) {
        human.clearLine()
        var jobs: [String] = []
        for entry in results.assemblies where !jobs.contains(entry.job) { jobs.append(entry.job) }
        for job in jobs {
            output.error("::group::job \(job)\n")
            for entry in results.assemblies where entry.job == job {
                output.error("\(entry.planID.prefix(12)) \(entry.assemblyID ?? "-") \(entry.cached ? "cached" : entry.status.printable)\n")
            }
            output.error("::endgroup::\n")
        }
        human.summary(results, resultsPath: resultsPath)
    }
}
