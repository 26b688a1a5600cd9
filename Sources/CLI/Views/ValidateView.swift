import Basics

/// How `validate` says its verdict: diagnostics and a line for people, or one JSON document
/// (`--json`). Chosen once from the arguments.
protocol ValidateView: Sendable {
    /// The verdict on `manifest`: `valid` holds its jobs and steps when it is valid.
    func show(manifest: String, diagnostics: [Diagnostic], sources: SourceStore, valid: (jobs: Int, steps: Int)?, context: CommandContext)
}

/// The verdict for people: diagnostics on standard error, one line when the manifest is valid.
struct HumanValidateView: ValidateView {
    func show(manifest: String, diagnostics: [Diagnostic], sources: SourceStore, valid: (jobs: Int, steps: Int)?, context: CommandContext) {
        context.report(diagnostics, sources: sources)
        guard let valid else { return }
        context.output.out("\(manifest): valid (\(plural(valid.jobs, "job")), \(plural(valid.steps, "step")))\n")
    }
}

/// The verdict and the diagnostics as one JSON document on standard output.
struct JSONValidateView: ValidateView {
    func show(manifest: String, diagnostics: [Diagnostic], sources: SourceStore, valid: (jobs: Int, steps: Int)?, context: CommandContext) {
        context.reportJSON(diagnostics, extra: ["valid": .bool(valid != nil), "manifest": .string(manifest)])
    }
}
