import Basics

/// What `init` says: what it wrote and what to run next, or why it wrote nothing.
struct InitView: Sendable {
    /// The project folder as given (`.` for this one).
    let directory: String

    /// The project folder cannot be made.
    func cannotMakeFolder(_ problem: String, context: CommandContext) {
        context.output.failure("cannot make the project folder '\(TerminalText.printable(directory))': \(problem)")
    }

    /// Media samples need ffmpeg.
    func noFFmpeg(context: CommandContext) {
        context.output.failure("the media samples are made with ffmpeg, which is not installed; nothing was written",
                               hint: "install it (apt-get install ffmpeg), or put your own media files in the folder first")
    }

    /// Paths that cannot be written (a folder where a file goes, a link).
    func blocked(_ blocked: [String], context: CommandContext) {
        context.output.failure(blocked.joined(separator: "; ") + "; nothing was written", hint: "move \(blocked.count == 1 ? "it" : "them") away and run init again")
    }

    /// Files in the way, without `--force`.
    func inTheWay(_ paths: [String], context: CommandContext) {
        let shown = paths.map { "'\(TerminalText.printable(directory == "." ? $0 : directory + "/" + $0))'" }
        context.output.failure("\(shown.joined(separator: ", ")) already \(paths.count == 1 ? "exists" : "exist"); nothing was written",
                               hint: "move \(paths.count == 1 ? "it" : "them") away, or pass --force to overwrite")
    }

    /// Writing failed.
    func failure(_ message: String, context: CommandContext) {
        context.output.failure(message)
    }

    /// What was written, what was left out (`leftOut`, a note or empty) and what to run next.
    func wrote(_ paths: [String], processes what: String, leftOut: String, context: CommandContext) {
        let enter = directory == "." ? "" : "  cd \(InitCommand.shellQuoted(directory))\n"
        context.output.out("""
            Wrote \(paths.joined(separator: ", ")) and .gitignore (\(what)).
            \(leftOut)Next:
            \(enter)  pipeline plan pipeline.yml     # what would run
              pipeline run pipeline.yml      # run it on this machine; results in build/

            """)
    }
}
