import Basics
import Foundation

/// Finds the manifest a command means when it names none, as git finds its repository: in this
/// folder, else in the nearest parent folder, stopping at the repository's root (the folder
/// that holds `.git`). Outside a repository only this folder is looked in, so an unrelated
/// manifest higher up (in a home folder) is never taken.
enum ManifestDiscovery {
    /// `name` when this folder has it; a relative path (`../../name`) to the nearest parent's;
    /// nil when there is none.
    static func find(_ name: String, from start: String = FileManager.default.currentDirectoryPath) -> String? {
        if FileManager.default.fileExists(atPath: name) { return name }
        var folder = RealPath.normalized(start)
        guard let root = repositoryRoot(from: folder), root != folder else { return nil }
        var climbed = ""
        while folder != root {
            folder = (folder as NSString).deletingLastPathComponent
            climbed += "../"
            if FileManager.default.fileExists(atPath: folder + "/" + name) { return climbed + name }
        }
        return nil
    }

    /// Why no manifest was found from `start`, for an error: none here (nor in a parent of its
    /// repository), or one in a parent folder that is not taken outside a repository.
    static func whyNoneFound(from start: String = FileManager.default.currentDirectoryPath) -> String {
        let folder = RealPath.normalized(start)
        guard repositoryRoot(from: folder) == nil else { return " (and there is no \(name) in this folder or a parent folder of its repository)" }
        var parent = folder, climbed = ""
        while parent != "/", !parent.isEmpty {
            parent = (parent as NSString).deletingLastPathComponent
            climbed += "../"
            if FileManager.default.fileExists(atPath: parent + "/" + name) {
                return " (there is \(climbed + name), but outside a git repository only this folder is searched, so that no manifest"
                    + " higher up is taken by chance: name it, or run from its folder)"
            }
        }
        return " (and there is no \(name) in this folder)"
    }

    /// The manifest's file name.
    private static var name: String { ParsedArguments.defaultManifest }

    /// The nearest folder from `folder` up that holds `.git` (a folder, or a worktree's file).
    static func repositoryRoot(from folder: String) -> String? {
        var current = folder
        while true {
            if FileManager.default.fileExists(atPath: current + "/.git") { return current }
            let parent = (current as NSString).deletingLastPathComponent
            if parent == current || parent.isEmpty { return nil }
            current = parent
        }
    }
}
