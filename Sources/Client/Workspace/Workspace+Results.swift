import Foundation

extension Workspace {
    /// The other manifest beside this one whose run wrote the results file, while it is still
    /// there: this manifest's run would replace its results (both default to `results.json`).
    /// Nil when the file is this manifest's, missing, from an older version, or its manifest is gone.
    public func resultsOwner() -> String? {
        guard let manifestFile, let owner = RunResults.load(resultsPath, keep: { _ in false })?.manifest,
              owner != manifestFile, !owner.contains("/") else { return nil }
        var info = stat()
        guard stat(directory + "/" + owner, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return owner
    }
}
