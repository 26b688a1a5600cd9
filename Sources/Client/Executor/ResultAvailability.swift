import Basics
import Foundation

/// Whether an earlier run's result can still be had, as of `now`: a file of the embedded engine's
/// data folder still there, a remote URL not yet expired (never for the embedded engine, whose
/// results are never fetched over the network), or else its download, still in place.
public struct ResultAvailability: Sendable {
    /// The embedded engine's data folder, when the run has one.
    public var localResults: String?
    /// The folder downloads' `localPath`s are relative to (the manifest's).
    public var downloadsBase: String?
    /// When the results are judged.
    public var now: Date

    /// Judges results at `now` for a run whose engine keeps its files in `localResults` (if embedded).
    public init(localResults: String?, downloadsBase: String?, now: Date) {
        (self.localResults, self.downloadsBase, self.now) = (localResults, downloadsBase, now)
    }

    /// Whether `file` can be had (see the type).
    public func holds(_ file: RunResults.ResultFile) -> Bool {
        guard let url = file.url else { return isDownloaded(file) }
        switch try? Downloader.source(of: url, localResults: localResults) {  // refused is the case nil below
        case .local(let path): return file.size.map { Self.size(of: path) == $0 } ?? true  // a file cut short or grown is not what was made
        case .remote: return file.expires.map { $0 > now } ?? true || isDownloaded(file)
        case .gone: return isDownloaded(file)
        case nil: return false  // refused: not the engine's, or a scheme never fetched
        }
    }

    private static func size(of path: String) -> Int64? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Whether the result's download is a file where the results say.
    private func isDownloaded(_ file: RunResults.ResultFile) -> Bool {
        guard let localPath = file.localPath, let downloadsBase else { return false }
        var info = stat()
        return lstat(localPath.hasPrefix("/") ? localPath : downloadsBase + "/" + localPath, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
