import Basics
import Client
import Foundation

/// How much a run says to people.
enum RunDetail: Sendable { case quiet, normal, verbose }

/// How a run is shown as it goes and when it ends: for people, as JSON events, or for people
/// with a CI's annotations. Chosen once from the run's arguments (`RunArguments.view`).
protocol RunView: Sendable {
    /// Something happened.
    func show(_ event: RunEvent)
    /// About once a second while the run goes on (progress ages even when nothing moves).
    func tick()
    /// The terminal was resized.
    func resized()
    /// Stops drawing progress, for a message that follows (after Ctrl-C).
    func clearLine()
    /// The run ended with `results`, written to `resultsPath`.
    func summary(_ results: RunResults, resultsPath: String)
}

extension RunView {
    /// Files left out of a run's results: a file two steps left out is one file.
    static func filesLeftOut(_ results: RunResults) -> Int {
        Set(results.assemblies.flatMap { entry in entry.leftOut.map { [ExactName(entry.planID), ExactName($0.source ?? $0.step)] } }).count
    }
}
