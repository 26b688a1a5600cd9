import Basics
import YAML

extension NodeDecoder {
    /// `path` when it stays inside the manifest's folder (relative, never climbing above it);
    /// otherwise an error: a manifest from a pull request must not name files to write elsewhere.
    /// The command line (`flag`) still can, since whoever types it chose it.
    func insideProject(_ path: Located<String>, what: String, flag: String) -> Located<String>? {
        var depth = 0
        let escapes = path.value.hasPrefix("/") || path.value.hasPrefix("~") || path.value.split(separator: "/").contains { part in
            if part == ".." { depth -= 1 } else if part != "." { depth += 1 }
            return depth < 0
        }
        // Git's own folder is never a place to write (its config holds the checkout's credentials),
        // nor pipeline's own state folder (its files would be taken for state).
        let inGit = path.value.split(separator: "/").contains { $0 == ".git" || $0 == ".pipeline" }
        guard escapes || inGit else { return path }
        report(.error(
            "manifest.outside-project", "\(what) must be a path inside the manifest's folder and outside .git/ and .pipeline/, not '\(path.value)'", at: path.location,
            hint: "write a relative path such as 'build/out'; to write somewhere else, pass \(flag) on the command line"))
        return nil
    }
}
