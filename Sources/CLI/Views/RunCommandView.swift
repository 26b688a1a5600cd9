import Basics
import Client
import Foundation

/// What `pipeline run` says on standard error besides the run's own events: the shard, a reviewed
/// plan that no longer holds, why nothing was run, what is left running, an interruption, and
/// `--watch`'s news. The run itself is shown by the `RunView` it makes once the run starts.
struct RunCommandView: Sendable {
    /// Where the run writes.
    let output: Output
    /// The run's arguments: the manifest named in hints, and the view they ask for.
    let arguments: RunArguments
    /// The environment (GitHub Actions' annotations when it runs there).
    let environment: [String: String]

    /// The view of the run itself that the arguments and the environment ask for: JSON events, or
    /// people's lines (with GitHub Actions' annotations in its logs); `handsOver` when the embedded
    /// engine reads the files where they are.
    func runView(handsOver: Bool) -> any RunView {
        if arguments.json { return JSONRunView(output: output) }
        let human = HumanRunView(output: output, detail: arguments.detail, handsOver: handsOver)
        return environment["GITHUB_ACTIONS"] == "true" ? GitHubRunView(human: human, output: output) : human
    }

    /// For `--shard auto`: which variables the shard came from.
    func shard(_ origin: String) {
        output.error("pipeline: \(origin)\n")
    }

    /// Something stopped the run before it began, or ended it.
    func failure(_ error: any Error) {
        output.failure("\(error)")
    }

    /// The files of the reviewed plan at `path` changed since it was made; nothing ran.
    func planChanged(_ path: String, differences: [String]) {
        output.failure(
            "the files changed since '\(path)' was planned; nothing was run:\n" + differences.map { "  \($0)" }.joined(separator: "\n"),
            hint: "review a new plan with 'pipeline plan \(arguments.manifestPath) --out \(path)', or run without --plan")
    }

    /// The policy wants a notify_url of a run that does not wait, and these jobs have none.
    func notifyURLMissing(jobs silent: [String]) {
        output.failure(
            "the policy requires a notify_url of a run that does not wait, and job\(silent.count == 1 ? "" : "s") \(silent.map { "'\($0.printable)'" }.joined(separator: ", ")) \(silent.count == 1 ? "has" : "have") none; nothing was run",
            hint: "set 'notify_url:' on the job (or in 'defaults:'), or run without --no-wait")
    }

    /// Another manifest downloads into the same folder.
    func sharedDownloadFolder(_ folder: String, with other: String) {
        output.error("pipeline: warning: manifest '\(other.printable)' downloads into '\(folder.printable)' too: results of the same step and file name replace each other there; give each manifest its own download folder\n")
    }

    /// `--no-wait` with the embedded engine, which stops with the command.
    func noWaitWithEmbeddedEngine() {
        output.failure(
            "--no-wait leaves the Assemblies running, and the embedded engine (endpoint: local) stops with this command; nothing was run",
            hint: "run 'pipeline serve' and use --endpoint http://127.0.0.1:8787 (or the hosted service), or run without --no-wait")
    }

    /// `--no-wait` left `count` Assemblies running.
    func leftRunning(_ count: Int) {
        output.error("pipeline: \(plural(count, "Assembly", "Assemblies")) left running; collect them with 'pipeline status \(arguments.manifestPath.printable) --wait'\n")
    }

    /// Ctrl-C with `--cancel-on-interrupt`: `canceled` Assemblies were canceled.
    func interrupted(canceled: Int) {
        output.error("pipeline: interrupted; canceled \(plural(canceled, "Assembly", "Assemblies")) in flight.\n")
    }

    /// Ctrl-C with `--cancel-on-interrupt`, and the Assemblies in flight could not be found.
    func interrupted(cancelFailed error: any Error) {
        output.error("pipeline: interrupted; canceled nothing: \(error)\n")
    }

    /// Ctrl-C: the state is saved in `stateDirectory`; `again` says how to go on.
    func interrupted(savedIn stateDirectory: String, again: String) {
        output.error("pipeline: interrupted; state is saved in \(stateDirectory). \(again)\n")
    }

    /// `--watch`: waiting for changes in `folders` folders.
    func watching(folders: Int) {
        output.error("pipeline: watching \(plural(folders, "folder")) for changes (Ctrl-C stops)\n")
    }

    /// `--watch`: what changed, before the next run.
    func changed(_ description: String) {
        output.error("pipeline: \(description)\n")
    }

    /// `--watch` ended (Ctrl-C).
    func stoppedWatching() {
        output.error("pipeline: stopped watching; state is saved.\n")
    }

    /// `--watch` cannot watch.
    func watchFailed(_ message: String) {
        output.failure(message)
    }
}
