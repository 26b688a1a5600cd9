import Basics
import Foundation

/// `run --watch`: runs, then watches the manifest, its policy and the folders its inputs live in,
/// and after each burst of changes (counted once, after 300 ms of quiet) says what was added,
/// removed, renamed or changed and runs exactly as a plain `run` would, so results, downloads and
/// the engine's data end as a plain run leaves them. The watch is set up before each run, so what
/// changes during a run starts the next one. An input folder that does not exist yet is waited
/// for in the nearest folder that does. The run's own outputs (`.pipeline/`, the results file,
/// download folders) are not watched. Ctrl-C stops it (exit 130; SIGTERM 143).
struct RunWatcher {
    let command: RunCommand

    func watch(_ context: CommandContext) async -> Int32 {
        let signals = SignalCenter.waiter()
        let view = command.view(context)
        var watcher: FileWatcher
        do { watcher = try arm(context, stop: { signals.hasReceived }) } catch { return failure(error, view, signals) }
        let first = await command.runOnce(context)
        // A manifest that is not there is a typo, not something to wait for.
        if first != ExitCode.success, !FileManager.default.fileExists(atPath: command.manifestPath) { return ExitCode.failure }
        while !signals.hasReceived {
            view.watching(folders: watcher.folderCount)
            guard let changes = await watcher.nextChanges(stop: { signals.hasReceived }) else { break }
            view.changed(changes.described(relative))
            // Armed again before the run (the manifest may name other folders now); what changes
            // while it runs waits in the new watch.
            do { watcher = try arm(context, stop: { signals.hasReceived }) } catch { return failure(error, view, signals) }
            // The plain run, whatever changed: a removed or renamed file leaves nothing to process
            // and still changes what the results, the downloads and the engine's data hold.
            _ = await command.runOnce(context)
        }
        view.stoppedWatching()
        return signals.exitStatus
    }

    private func arm(_ context: CommandContext, stop: @escaping () -> Bool) throws -> FileWatcher {
        let targets = WatchTargets(command: command, environment: context.environment)
        let project = FolderPath.of(RealPath.normalized(command.manifestPath))
        return try FileWatcher(recursive: targets.recursive, single: targets.single, ignored: targets.ignored, project: project, stop: stop)
    }

    private func failure(_ error: any Error, _ view: RunCommandView, _ signals: SignalWaiter) -> Int32 {
        if error is FileWatcher.Stopped {
            view.stoppedWatching()
            return signals.exitStatus
        }
        view.watchFailed((error as? FileWatcher.WatchError)?.message ?? "\(error)")
        return ExitCode.failure
    }

    private func relative(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }
}
