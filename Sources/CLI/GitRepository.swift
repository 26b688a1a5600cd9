import Basics
import Foundation

/// The git repository whose work tree holds a folder, found the way a checkout is laid out rather
/// than the way git searches: the nearest folder at or above it with a `.git` entry (a folder, or
/// the file a worktree or submodule has). A folder on the way that holds a bare repository's files
/// is refused, since it can only have come from the work tree's own content.
struct GitRepository {
    /// The `.git` folder or file.
    let gitDirectory: String
    /// The folder that holds it.
    let workTree: String

    /// The repository for `folder`, nil when there is none; `GitRevision.Failure` when a planted
    /// one is on the way, or when the folder is a link that leads out of the work tree (a
    /// committed `cfg -> ../other-repository/cfg` would make another repository's history this one's).
    static func enclosing(_ folder: String) throws -> GitRepository? {
        guard let real = RealPath.of(folder) else { throw GitRevision.Failure(message: "'\(folder.printable)' does not exist") }
        // Searched along the path as given, as the work tree holds it; links are the checkout's content.
        var current = RealPath.normalized(folder)
        while true {
            let dotGit = current == "/" ? "/.git" : current + "/.git"
            if FileManager.default.fileExists(atPath: dotGit) {
                guard let workTree = RealPath.of(current), RealPath.isInside(real, workTree) else {
                    throw GitRevision.Failure(
                        message: "'\(folder.printable)' leads out of the work tree at '\(current.printable)' (a link to '\(real.printable)'); "
                            + "--base reads only the work tree's own repository")
                }
                return GitRepository(gitDirectory: dotGit, workTree: current)
            }
            if looksLikeBareRepository(current) {
                throw GitRevision.Failure(
                    message: "'\(current.printable)' holds a git repository's own files (HEAD with objects/ and refs/, or commondir) inside the work tree; "
                        + "--base will not run git on a repository committed as content. Remove them, or run from a checkout without them")
            }
            if current == "/" { return nil }
            current = FolderPath.of(current)
        }
    }

    /// Whether `folder` has what git takes for a repository's own folder: `HEAD` with `objects/`
    /// and `refs/`, or with a `commondir` file (a worktree's folder, which names another).
    private static func looksLikeBareRepository(_ folder: String) -> Bool {
        let manager = FileManager.default
        guard manager.fileExists(atPath: folder + "/HEAD") else { return false }
        if manager.fileExists(atPath: folder + "/commondir") { return true }
        var isFolder: ObjCBool = false
        return manager.fileExists(atPath: folder + "/objects", isDirectory: &isFolder) && isFolder.boolValue
            && manager.fileExists(atPath: folder + "/refs", isDirectory: &isFolder) && isFolder.boolValue
    }
}
