import Basics
import Foundation

/// `run --watch`: runs, then watches the manifest, its policy and the folders its inputs live in,
/// and runs again when something changes (a burst of changes counts once, after 300 ms of quiet).
/// The watch is set up before each run, so what changes during a run starts the next one. An
/// input folder that does not exist yet is waited for in the nearest folder that does. The
/// run's own outputs (`.pipeline/`, the results file, download folders) are not watched. A change
/// that leaves nothing new to process runs nothing. Ctrl-C stops it (exit 130; SIGTERM 143).
struct RunWatcher {
    let command: RunCommand

    func watch(_ context: CommandContext) async -> Int32 {
        let signals = SignalCenter.waiter()
        var watcher: FileWatcher
        do { watcher = try arm(context, stop: { signals.hasReceived }) } catch { return failure(error, context, signals) }
        let first = await command.runOnce(context)
        // A manifest that is not there is a typo, not something to wait for.
        if first != ExitCode.success, !FileManager.default.fileExists(atPath: command.manifestPath) { return ExitCode.failure }
        while !signals.hasReceived {
            context.output.error("pipeline: watching \(plural(watcher.folderCount, "folder")) for changes (Ctrl-C stops)\n")
            guard let changed = await watcher.nextChanges(stop: { signals.hasReceived }) else { break }
            let shown = changed.prefix(3).map { TerminalText.printable(relative($0)) }.joined(separator: ", ")
            context.output.error("pipeline: changed: \(shown)\(changed.count > 3 ? " and \(changed.count - 3) more" : "")\n")
            // Armed again before the run (the manifest may name other folders now); what changes
            // while it runs waits in the new watch.
            do { watcher = try arm(context, stop: { signals.hasReceived }) } catch { return failure(error, context, signals) }
            // An edited manifest always runs (a new `download:` fetches cached results); other changes
            // run only when they leave something to process.
            let manifest = URL(fileURLWithPath: command.manifestPath).standardizedFileURL.path
            _ = await command.runOnce(context, onlyWhenChanged: !changed.contains(manifest))
        }
        context.output.error("pipeline: stopped watching; state is saved.\n")
        return signals.exitStatus
    }

    private func arm(_ context: CommandContext, stop: @escaping () -> Bool) throws -> FileWatcher {
        let targets = WatchTargets(command: command, environment: context.environment)
        let project = FolderPath.of(URL(fileURLWithPath: command.manifestPath).standardizedFileURL.path)
        return try FileWatcher(recursive: targets.recursive, single: targets.single, ignored: targets.ignored, project: project, stop: stop)
    }

    private func failure(_ error: any Error, _ context: CommandContext, _ signals: SignalWaiter) -> Int32 {
        if error is FileWatcher.Stopped {
            context.output.error("pipeline: stopped watching; state is saved.\n")
            return signals.exitStatus
        }
        context.output.failure((error as? FileWatcher.WatchError)?.message ?? "\(error)")
        return ExitCode.failure
    }

    private func relative(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }
}
