import APIClients
import Basics

/// What `cancel` says: each Assembly asked, how many were canceled, and why nothing was.
struct CancelView: Sendable {
    /// The manifest whose run is canceled, as shown.
    let manifest: String

    /// The run state cannot be read.
    func failure(_ message: String, context: CommandContext) {
        context.output.failure(message)
    }

    /// The last run was on another endpoint.
    func ranElsewhere(_ elsewhere: String, not key: String, context: CommandContext) {
        context.output.failure(
            "the last run of \(manifest) was on \(elsewhere.printable), not \(key.printable); nothing was canceled",
            hint: "'pipeline cancel \(manifest) --endpoint \(elsewhere.printable)' cancels its Assemblies there")
    }

    /// A run on the embedded engine is going on: only it can cancel its Assemblies.
    func embeddedRunGoingOn(context: CommandContext) {
        context.output.failure(
            "the run of \(manifest) going on holds its Assemblies in its own process (the embedded engine); nothing was canceled",
            hint: "interrupt that run (Ctrl-C): its state is saved; with 'pipeline run \(manifest) --cancel-on-interrupt' it cancels them")
    }

    /// Nothing to cancel on the embedded engine.
    func nothingEmbedded(context: CommandContext) {
        context.output.out("Nothing to cancel: the embedded engine's Assemblies end with their run.\n")
    }

    /// Nothing of the last run is in flight on `key`.
    func nothingInFlight(on key: String, context: CommandContext) {
        context.output.out("Nothing to cancel on \(key.printable): no Assembly of the last run is in flight.\n")
    }

    /// What became of Assembly `id`; a failure is said with the others at the end.
    func show(_ id: String, _ outcome: CancelOutcome, context: CommandContext) {
        switch outcome {
        case .canceled(let status): context.output.out("\(id): \(status.printable)\n")
        case .ended(let status): context.output.out("\(id): had already ended (\(status.printable))\n")
        case .failed: break
        }
    }

    /// How many were canceled.
    func canceled(_ count: Int, context: CommandContext) {
        context.output.out("Canceled \(plural(count, "Assembly", "Assemblies")).\n")
    }

    /// The Assemblies that could not be canceled on `key`.
    func notCanceled(_ failed: [(id: String, why: AssemblyClient.Failure)], on key: String, context: CommandContext) {
        let lines = failed.map { "  \($0.id): \($0.why.description)" }.joined(separator: "\n")
        let notFound = failed.contains { $0.why.code == .assemblyNotFound || $0.why.httpStatus == 404 }
        context.output.failure(
            "\(plural(failed.count, "Assembly", "Assemblies")) could not be canceled on \(key.printable):\n" + lines,
            hint: notFound ? "an Assembly the endpoint does not know was started elsewhere: 'pipeline cancel \(manifest) --endpoint URL' asks the endpoint the run used" : nil)
    }
}
