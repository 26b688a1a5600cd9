import Basics
import Client
import Foundation
import Spec

/// `run --watch`: runs, then watches the manifest, its policy and the folders its inputs live in,
/// and runs again when something changes (a burst of changes counts once, after 300 ms of quiet).
/// The run's own outputs (`.pipeline/`, the results file, download folders) are not watched. A
/// change that leaves nothing new to process runs nothing. Ctrl-C stops it (exit 130).
struct RunWatcher {
    let command: RunCommand

    func watch(_ context: CommandContext) async -> Int32 {
        let signals = SignalCenter.waiter()
        _ = await command.runOnce(context)
        while !signals.hasReceived {
            let watcher: FileWatcher
            do {
                let folders = self.folders(context)
                watcher = try FileWatcher(recursive: folders.recursive, single: folders.single, ignored: folders.ignored)
            } catch {
                context.output.failure((error as? FileWatcher.WatchError)?.message ?? "\(error)")
                return ExitCode.failure
            }
            context.output.error("pipeline: watching \(plural(watcher.folderCount, "folder")) for changes (Ctrl-C stops)\n")
            guard let changed = await watcher.nextChanges(stop: { signals.hasReceived }) else { break }
            let shown = changed.prefix(3).map { TerminalText.printable(relative($0)) }.joined(separator: ", ")
            context.output.error("pipeline: changed: \(shown)\(changed.count > 3 ? " and \(changed.count - 3) more" : "")\n")
            _ = await command.runOnce(context, onlyWhenChanged: true)
        }
        context.output.error("pipeline: stopped watching; state is saved.\n")
        return ExitCode.interrupted
    }

    /// What to watch: the input folders with their subfolders, the folders of the manifest and
    /// policy alone; and what to ignore.
    private func folders(_ context: CommandContext) -> (recursive: [String], single: [String], ignored: [String]) {
        let path = URL(fileURLWithPath: command.manifestPath).standardizedFileURL.path
        let directory = (path as NSString).deletingLastPathComponent
        guard let manifest = ManifestLoader(environment: context.environment).load(path: path).value else {
            // A manifest that does not load is watched until it does.
            return ([], [directory], [directory + "/.pipeline"])
        }
        let policy = command.arguments.value("policy") ?? manifest.policy?.value
        var single = [directory]
        if let policy, !policy.contains("://") { single.append((manifest.path(policy) as NSString).deletingLastPathComponent) }
        var recursive: [String] = []
        for job in manifest.jobs {
            for input in job.inputs where !input.value.hasPrefix("!") {
                let literal = input.value.split(separator: "/", omittingEmptySubsequences: false)
                    .prefix { !$0.contains(where: { "*?[{".contains($0) }) }
                let base = literal.count == input.value.split(separator: "/", omittingEmptySubsequences: false).count
                    ? literal.dropLast() : literal
                recursive.append(base.isEmpty ? directory : manifest.path(base.joined(separator: "/")))
            }
        }
        let workspace = Workspace(manifest: manifest, resultsOverride: command.arguments.value("results"))
        var ignored = [workspace.stateDirectory, workspace.resultsPath] + manifest.jobs.compactMap { $0.download.map { manifest.path($0.value) } }
        if let download = command.arguments.value("download") { ignored.append(URL(fileURLWithPath: download).standardizedFileURL.path) }
        return (recursive.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, single, ignored)
    }

    private func relative(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }
}
