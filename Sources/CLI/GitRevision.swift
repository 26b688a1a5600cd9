import Basics
import Foundation

/// Files as they were at a git revision (`git show REV:path`), for `diff --base`.
struct GitRevision {
    let revision: String
    /// The folder git runs in: the manifest's.
    let folder: String
    /// The work tree's repository, found once (`GitRepository`).
    private let repository: Result<GitRepository?, any Error>

    /// A revision of the repository that holds `file`.
    init(revision: String, file: String) {
        self.revision = revision
        folder = FolderPath.of(file).isEmpty ? "." : FolderPath.of(file)
        repository = Result { [folder] in try GitRepository.enclosing(folder) }
    }

    /// The revision as messages may show it.
    var shown: String { TerminalText.printable(revision) }

    /// The commit the revision names; an error for anything else (a pathspec, an option, a typo).
    func commit() throws -> String {
        let outcome = try git(["rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"])
        let commit = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard outcome.status == 0, commit.count == 40 || commit.count == 64, commit.allSatisfy(\.isHexDigit) else {
            throw Failure(message: "'\(shown)' is not a git revision of the repository holding '\(folder)'")
        }
        return commit
    }

    /// The bytes at the revision of `relative` (a path from the manifest's folder); `nil` when the file is not there.
    func show(_ relative: String) throws -> Data? {
        // `COMMIT:./path` is relative to the folder git runs in, wherever the repository's root is.
        let outcome = try git(["cat-file", "blob", try commit() + ":./" + relative])
        guard outcome.status == 0 else { return nil }
        return Data(outcome.stdout.utf8)
    }

    /// Runs git on the work tree's own repository, found here rather than by git: a pull request can
    /// commit a bare repository's files (`HEAD`, `config`, `objects/`, `refs/`) beside a manifest,
    /// and git's own search would take that folder, with a `config` that runs commands, for the
    /// repository. Nothing git offers to run is allowed: no hooks, fsmonitor, pager, external diff,
    /// replace refs, or fetch of any kind (a partial clone's lazy fetch included).
    private func git(_ arguments: [String]) throws -> ChildProcess.Outcome {
        guard let repository = try repository.get() else {
            throw Failure(message: "'\(folder.printable)' is not in a git repository, so --base '\(shown)' names nothing")
        }
        let hardened = [
            "env", "GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0",
            "git", "--no-pager", "--git-dir=" + repository.gitDirectory, "--work-tree=" + repository.workTree, "-C", folder,
            "-c", "safe.bareRepository=explicit", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
            "-c", "protocol.allow=never", "-c", "diff.external=", "-c", "core.pager=cat",
        ]
        do {
            return try ChildProcess.runBlocking(hardened + arguments, timeout: .seconds(30), environment: .inherited)
        } catch {
            throw Failure(message: "cannot run git (\(error)); --base needs git on PATH")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
