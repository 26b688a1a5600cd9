import Basics
import Client
import Foundation
import Spec

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
        do { watcher = try arm(context) } catch { return failure(error, context) }
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
            do { watcher = try arm(context) } catch { return failure(error, context) }
            // An edited manifest always runs (a new `download:` fetches cached results); other changes
            // run only when they leave something to process.
            let manifest = URL(fileURLWithPath: command.manifestPath).standardizedFileURL.path
            _ = await command.runOnce(context, onlyWhenChanged: !changed.contains(manifest))
        }
        context.output.error("pipeline: stopped watching; state is saved.\n")
        return signals.exitStatus
    }

    private func arm(_ context: CommandContext) throws -> FileWatcher {
        let targets = WatchTargets(command: command, environment: context.environment)
        return try FileWatcher(recursive: targets.recursive, single: targets.single, ignored: targets.ignored)
    }

    private func failure(_ error: any Error, _ context: CommandContext) -> Int32 {
        context.output.failure((error as? FileWatcher.WatchError)?.message ?? "\(error)")
        return ExitCode.failure
    }

    private func relative(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }
}

/// What `run --watch` watches for one manifest: input folders with their subfolders; single
/// folders for just the names that matter there (the manifest, the policy, an input folder yet
/// to be made); and the run's outputs, ignored.
struct WatchTargets {
    var recursive: [String] = []
    var single: [String: Set<String>] = [:]
    var ignored: [String] = []

    init(command: RunCommand, environment: [String: String]) {
        let path = URL(fileURLWithPath: command.manifestPath).standardizedFileURL.path
        let directory = (path as NSString).deletingLastPathComponent
        add(path)
        guard let manifest = ManifestLoader(environment: environment).load(path: path).value else {
            // A manifest that does not load is watched until it does.
            ignored = [directory + "/.pipeline"]
            return
        }
        if let policy = command.arguments.value("policy") ?? manifest.policy?.value, !policy.contains("://") {
            add(URL(fileURLWithPath: manifest.path(policy)).standardizedFileURL.path)
        }
        for job in manifest.jobs {
            for input in job.inputs where !input.value.hasPrefix("!") {
                let parts = input.value.split(separator: "/", omittingEmptySubsequences: false)
                let literal = parts.prefix { !$0.contains(where: { "*?[{".contains($0) }) }
                // A glob without wildcards names a file: its folder is watched.
                let base = literal.count == parts.count ? literal.dropLast() : literal
                let folder = URL(fileURLWithPath: base.isEmpty ? directory : manifest.path(base.joined(separator: "/"))).standardizedFileURL.path
                if Self.isFolder(folder) { recursive.append(folder) } else { add(folder) }
                // A linked folder is watched where it points; the link itself where it lives, so
                // pointing it elsewhere is a change.
                if Self.isLink(folder) { add(folder) }
            }
        }
        let workspace = Workspace(manifest: manifest, resultsOverride: command.arguments.value("results"))
        ignored = [workspace.stateDirectory, workspace.resultsPath] + manifest.jobs.compactMap { $0.download.map { manifest.path($0.value) } }
        if let download = command.arguments.value("download") { ignored.append(URL(fileURLWithPath: download).standardizedFileURL.path) }
    }

    /// Watches for `path` in the nearest folder above it that exists.
    private mutating func add(_ path: String) {
        var missing = path
        var folder = (path as NSString).deletingLastPathComponent
        while !Self.isFolder(folder), folder != "/", !folder.isEmpty {
            missing = folder
            folder = (folder as NSString).deletingLastPathComponent
        }
        single[folder, default: []].insert((missing as NSString).lastPathComponent)
    }

    private static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
