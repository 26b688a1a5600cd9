import Basics

/// What `policy suggest` says: the policy (on standard output, or the file it wrote), and why it
/// has no size limits or was not written.
struct PolicyView: Sendable {
    /// The manifest could not be planned: the policy gets no size limits.
    func unplanned(errors: Int, context: CommandContext) {
        context.output.error("pipeline: warning: the manifest could not be planned (\(errors) errors); the policy has no size limits\n")
    }

    /// The policy on standard output.
    func show(_ policy: String, context: CommandContext) {
        context.output.out(policy)
    }

    /// `--out` names a file that exists.
    func exists(_ out: String, context: CommandContext) {
        context.output.failure("'\(out)' exists; it is not replaced", hint: "name another file, or remove it first")
    }

    /// The policy could not be written to `out`.
    func notWritten(_ error: any Error, out: String, context: CommandContext) {
        context.output.failure("\(error)", hint: "check that the folder of '\(out)' exists and is writable")
    }

    /// The policy was written to `out`; `advice` says how the manifest names it.
    func wrote(_ out: String, advice: String, context: CommandContext) {
        context.output.error("pipeline: wrote \(out)\(advice)\n")
    }
}

/// What `report` says: the page it wrote, or why there is none.
struct ReportView: Sendable {
    /// The manifest has no results yet.
    func noResults(_ resultsPath: String, manifest: String, context: CommandContext) {
        context.output.failure("no results to report at \(resultsPath.printable)", hint: "run the manifest first: pipeline run \(manifest)")
    }

    /// `--compare` names no results file.
    func unreadableComparison(_ path: String, context: CommandContext) {
        context.output.failure("cannot read the results file '\(path.printable)' given to --compare", hint: "give a results.json a run wrote")
    }

    /// The page could not be written.
    func notWritten(_ error: any Error, target: String, context: CommandContext) {
        context.output.failure("\(error)", hint: "check that the folder of '\(target.printable)' exists and is writable")
    }

    /// The page was written to `target`.
    func wrote(_ target: String, bytes: Int, context: CommandContext) {
        context.output.out("Wrote \(HumanRunView.shown(target)) (\(ByteSize(bytes: Int64(bytes)))).\n")
    }
}

/// What `completions` prints: the script.
struct CompletionsView: Sendable {
    /// The completion script on standard output.
    func show(_ script: String, context: CommandContext) {
        context.output.out(script)
    }
}
