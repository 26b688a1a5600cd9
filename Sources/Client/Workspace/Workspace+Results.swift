import Basics
import Foundation

extension Workspace {
    /// The manifest as its results name it: its path from the results file's folder (its file
    /// name when the results are beside it, the default).
    public var manifestFromResults: String? {
        manifestFile.map { RealPath.relative(directory + "/" + $0, from: FolderPath.of(RealPath.normalized(resultsPath))) }
    }

    /// `path` as results name a local file: relative to the manifest's folder when inside it,
    /// else absolute.
    public func pathFromManifest(_ path: String) -> String {
        RealPath.relative(path, inside: directory) ?? RealPath.normalized(path)
    }

    /// Why this manifest's run (of `shard`, `I/N`, if any) must not write the results file: it is
    /// a file that holds no results (a source, the manifest, anything else it would replace), or
    /// lies in a step folder of a folder `downloads` go to (a download would replace it); or it holds the results
    /// of another manifest that is still there (two manifests left at `results.json` in one
    /// folder, or pointed at one file), or of another shard of this one, which the run would
    /// replace. Nil when the file is missing or empty, from an older version, this run's own, or
    /// its manifest is gone.
    public func resultsConflict(shard: String?, downloads: [String] = []) -> Diagnostic? {
        let results = TerminalText.printable(resultsPath)
        let normalized = RealPath.normalized(resultsPath)
        // Downloads go to DIR/<step>/…: a results file beside the step folders is safe, one below them is not.
        if let folder = downloads.first(where: { RealPath.relative(normalized, inside: RealPath.normalized($0))?.contains("/") == true }) {
            return .error(
                "run.results-in-downloads", "the results file '\(results)' is inside a step folder of the download folder '\(TerminalText.printable(folder))', where downloads would replace it; nothing was run",
                hint: "write the results outside the download folder's step folders ('results:' in the manifest, or --results), such as \(TerminalText.printable(RealPath.relative(RealPath.normalized(folder) + "/results.json", from: directory)))")
        }
        var info = stat()
        guard lstat(resultsPath, &info) == 0, info.st_size > 0 else { return nil }
        guard let held = RunResults.load(resultsPath, keep: { _ in false }) else {
            return .error(
                "run.results-not-results", "'\(results)' is not a results file, and the run would replace it; nothing was run",
                hint: "point 'results:' (or --results) at a new file such as results.json; if '\(results)' is a damaged results file, delete it")
        }
        guard let manifestFile, let owner = held.manifest else { return nil }
        let theirPath = RealPath.normalized(FolderPath.of(RealPath.normalized(resultsPath)) + "/" + owner)
        let ourPath = RealPath.normalized(directory + "/" + manifestFile)
        var theirs = stat(), ours = stat()
        guard stat(theirPath, &theirs) == 0, theirs.st_mode & S_IFMT == S_IFREG else { return nil }
        let sameManifest = theirPath == ourPath
            || (stat(ourPath, &ours) == 0 && ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino)
        if sameManifest {
            // Only a shard's run would lose what another shard, or the whole run, wrote.
            guard let shard, held.shard != shard else { return nil }
            return .error(
                "run.results-taken",
                "'\(results)' holds the results of \(held.shard.map { "shard \($0)" } ?? "the whole run"), which shard \(shard)'s run would replace; nothing was run",
                hint: "give each shard its own --results file (such as results-\(shard.replacingOccurrences(of: "/", with: "-of-")).json), then combine them with 'pipeline results merge'")
        }
        return .error(
            "run.results-taken",
            "'\(results)' holds the results of '\(TerminalText.printable(theirPath))', which a run of '\(TerminalText.printable(ourPath))' would replace; nothing was run",
            hint: "give each manifest its own results file ('results: \(TerminalText.printable(manifestName ?? "other"))-results.json' in the manifest), "
                + "or delete '\(results)' to replace them")
    }
}
