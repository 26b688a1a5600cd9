import Basics
import Foundation

extension Workspace {
    /// The manifest as its results name it: its path from the results file's folder (its file
    /// name when the results are beside it, the default).
    public var manifestFromResults: String? {
        manifestFile.map { RealPath.relative(directory + "/" + $0, from: FolderPath.of(RealPath.normalized(resultsPath))) }
    }

    /// The other manifest whose run wrote the results file, while it is still there: this
    /// manifest's run would replace its results (two manifests left at `results.json` in one
    /// folder, or pointed at one file). Nil when the file is this manifest's (by path, or by link
    /// to the same file), missing, from an older version, or its manifest is gone.
    public func resultsOwner() -> String? {
        guard let manifestFile, let owner = RunResults.load(resultsPath, keep: { _ in false })?.manifest else { return nil }
        let theirPath = RealPath.normalized(FolderPath.of(RealPath.normalized(resultsPath)) + "/" + owner)
        let ourPath = RealPath.normalized(directory + "/" + manifestFile)
        var theirs = stat(), ours = stat()
        guard theirPath != ourPath, stat(theirPath, &theirs) == 0, theirs.st_mode & S_IFMT == S_IFREG else { return nil }
        if stat(ourPath, &ours) == 0, ours.st_dev == theirs.st_dev, ours.st_ino == theirs.st_ino { return nil }
        return owner.contains("/") ? theirPath : owner
    }
}
