import Basics
import Foundation

/// Files as they were at a git revision (`git show REV:path`), for `diff --base`.
struct GitRevision {
    let revision: String
    /// The folder git runs in: the manifest's.
    let folder: String

    /// A revision of the repository that holds `file`.
    init(revision: String, file: String) {
        self.revision = revision
        folder = (file as NSString).deletingLastPathComponent.isEmpty ? "." : (file as NSString).deletingLastPathComponent
    }

    /// The bytes of `path` (as the working tree names it) at the revision.
    func show(_ path: String) throws -> Data {
        // `REV:./name` is the file beside the manifest, wherever the repository's root is.
        let relative = "./" + (path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : (path as NSString).lastPathComponent)
        guard !revision.hasPrefix("-") else { throw Failure(message: "'\(revision)' is not a git revision") }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.runBlocking(["git", "-C", folder, "show", "\(revision):\(relative)"], timeout: .seconds(30))
        } catch {
            throw Failure(message: "cannot run git to read '\(relative)' at \(revision): \(error)")
        }
        guard outcome.status == 0 else {
            let said = outcome.stderr.split(separator: "\n").first.map(String.init) ?? "exit status \(outcome.status)"
            throw Failure(message: "git cannot show '\(relative)' at \(revision): \(TerminalText.printable(said))")
        }
        return Data(outcome.stdout.utf8)
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// A file of our own in the temporary folder, removed by its owner.
struct TemporaryFile {
    let path: String

    init(contents: Data) throws {
        path = NSTemporaryDirectory() + "/pipeline-\(UUID().uuidString)"
        try contents.write(to: URL(fileURLWithPath: path))
    }

    func remove() { unlink(path) }
}
