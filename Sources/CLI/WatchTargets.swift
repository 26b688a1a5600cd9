import Basics
import Client
import Foundation
import Spec

/// What `run --watch` watches for one manifest: input folders with their subfolders; single
/// folders for just the names that matter there (the manifest, the policy, an input folder yet
/// to be made); and the run's outputs, ignored.
struct WatchTargets {
    var recursive: [String] = []
    var single: [String: Set<String>] = [:]
    var ignored: [String] = []

    init(command: RunCommand, environment: [String: String]) {
        let path = RealPath.normalized(command.manifestPath)
        let directory = FolderPath.of(path)
        add(path)
        guard let manifest = ManifestLoader(environment: environment).load(path: path).value else {
            // A manifest that does not load is watched until it does.
            ignored = [directory + "/.pipeline"]
            return
        }
        if let policy = command.arguments.policy ?? manifest.policy?.value, !policy.contains("://") {
            add(RealPath.normalized(manifest.path(policy)))
        }
        for job in manifest.jobs {
            for input in job.inputs where !input.value.hasPrefix("!") {
                let parts = input.value.split(separator: "/", omittingEmptySubsequences: false)
                let literal = parts.prefix { !$0.contains(where: { "*?[{".contains($0) }) }
                // A glob without wildcards names a file: its folder is watched.
                let base = literal.count == parts.count ? literal.dropLast() : literal
                let folder = RealPath.normalized(base.isEmpty ? directory : manifest.path(base.joined(separator: "/")))
                if Self.isFolder(folder) { recursive.append(folder) } else { add(folder) }
                // A linked folder is watched where it points; the link itself where it lives, so
                // pointing it elsewhere is a change.
                if Self.isLink(folder) { add(folder) }
            }
        }
        let workspace = Workspace(manifest: manifest, resultsOverride: command.arguments.results)
        ignored = [workspace.stateDirectory, workspace.resultsPath] + manifest.jobs.compactMap { $0.download.map { manifest.path($0.value) } }
        if let download = command.arguments.download { ignored.append(RealPath.normalized(download)) }
    }

    /// Watches for `path` in the nearest folder above it that exists.
    private mutating func add(_ path: String) {
        var missing = path
        var folder = FolderPath.of(path)
        while !Self.isFolder(folder), folder != "/", !folder.isEmpty {
            missing = folder
            folder = FolderPath.of(folder)
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
