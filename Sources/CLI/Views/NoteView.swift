/// What the helpers several commands share (the embedded engine's set-up, the last run's
/// records) say on standard error, whichever command uses them.
struct NoteView: Sendable {
    /// Where the notes go (standard error).
    let output: Output

    /// A warning: `pipeline: warning: <message>`.
    func warning(_ message: String) {
        output.error("pipeline: warning: \(message)\n")
    }

    /// The embedded engine waits for another command or a `pipeline serve` to leave its folder.
    func waitingForEngine(_ folder: String) {
        output.error("pipeline: waiting for \(folder), in use by another pipeline command or a pipeline serve (Ctrl-C gives up)\n")
    }
}
