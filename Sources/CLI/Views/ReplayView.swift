import Basics
import Client

/// What `replay` says: what it replays, each Assembly's outcome, a summary, and why nothing was replayed.
struct ReplayView: Sendable {
    /// The manifest, as named in hints.
    let manifestPath: String

    /// There are no results to replay.
    func noResults(_ resultsPath: String, context: CommandContext) {
        context.output.failure("no results to replay: \(HumanRunView.shown(resultsPath)) is missing", hint: "run 'pipeline run \(manifestPath.printable)' first")
    }

    /// Nothing of the last results matches the targets (`all`: the results name no Assembly).
    func nothingMatches(_ targets: [String], all: Bool, context: CommandContext) {
        context.output.failure("nothing to replay: " + (all ? "the last results name no Assembly" : "no Assembly of the last results matches \(targets.map { "'\($0.printable)'" }.joined(separator: ", "))"),
                               hint: "name a job of the manifest, or an Assembly id from 'pipeline status \(manifestPath.printable)'")
    }

    /// The embedded engine keeps nothing to replay.
    func embeddedEngine(context: CommandContext) {
        context.output.failure("the embedded engine (endpoint: local) reads files where they are and keeps none to replay",
                               hint: "'pipeline run' makes only what changed; against 'pipeline serve' or the hosted service, replay runs what they kept")
    }

    /// What is about to be replayed (`ReplayCommand.named`).
    func replaying(_ named: String, context: CommandContext) {
        context.output.error("pipeline: replaying \(named)\n")
    }

    /// An Assembly was skipped, and why.
    func skipped(_ name: String, why: String, context: CommandContext) {
        context.output.error("pipeline: skipped \(name): \(why)\n")
    }

    /// An Assembly was replayed as `made`.
    func replayed(_ name: String, as made: RunResults.Entry, context: CommandContext) {
        context.output.error("pipeline: replayed \(name) as Assembly \(made.assemblyID ?? "?"): \(plural(made.results.values.reduce(0) { $0 + $1.count }, "result"))\n")
    }

    /// A replay failed; the old results stay.
    func failed(_ name: String, as made: RunResults.Entry, context: CommandContext) {
        context.output.error("pipeline: replay of \(name) failed (the old results stay): \(made.status.printable): \((made.message ?? "").printable)\n")
    }

    /// The results could not be written.
    func notWritten(_ error: any Error, context: CommandContext) {
        context.output.failure("the results could not be written: \(error)")
    }

    /// The summary.
    func summary(replayed: Int, failed: Int, skipped: Int, resultsPath: String, context: CommandContext) {
        context.output.out("Replay: \(replayed) replayed, \(failed) failed, \(skipped) skipped. Results: \(HumanRunView.shown(resultsPath))\n")
    }
}
