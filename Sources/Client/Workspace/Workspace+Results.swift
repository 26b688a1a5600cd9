import Foundation

extension Workspace {
    /// The other manifest beside this one whose run wrote the results file, while it is still
    /// there: this manifest's run would replace its results (both default to `results.json`).
    /// Nil when the file is this manifest's (by name, or by link to the same file), missing, from
    /// an older version, or its manifest is gone.
    public func resultsOwner() -> String? {
        guard let manifestFile, let owner = RunResults.load(resultsPath, keep: { _ in false })?.manifest,
              owner != manifestFile, !owner.contains("/") else { return nil }
        var theirs = stat(), ours = stat()
        guard stat(directory + "/" + owner, &theirs) == 0, theirs.st_mode & S_IFMT == S_IFREG else { return nil }
        if stat(directory + "/" + manifestFile, &ours) == 0, ours.st_dev == theirs.st_dev, ours.st_ino == theirs.st_ino { return nil }
        return owner
    }
}
