import Foundation
import HTTPClient
import Basics

/// Fetches an Assembly's result files into its download folder, where `DownloadLayout` places
/// them, a few at once, checking each file's size. Only `http`/`https` URLs are fetched, except
/// the embedded engine's `file://` URLs inside its own data folder; files are streamed to disk and
/// written without following links below the folder the user named.
struct Downloader: Sendable {
    let http: HTTPClient
    /// The embedded engine's data folder: the one place `file://` result URLs may name.
    let localResults: String?
    /// The folder that is the user's own (the manifest's): links above it are theirs to keep.
    let trusted: String?

    /// Files fetched at once.
    static let parallel = 4

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Target: Sendable {
        var url: String
        var folder: LinkFreeFolder
        var name: String
        var size: Int64
    }

    /// Downloads the entry's results to `paths` (per step, each result's path below `folder`, as
    /// `DownloadLayout` gives them); the paths written.
    @discardableResult
    func download(_ entry: RunResults.Entry, into folder: String, paths: [String: [String?]]) async throws -> Set<String> {
        let root = try LinkFreeFolder.open(folder, below: trusted)
        var folders: [String: LinkFreeFolder] = [:]
        var targets: [Target] = []
        var written: Set<String> = []
        for (step, files) in entry.results {
            for (index, file) in files.enumerated() {
                guard let url = file.url, let path = paths[step]?[index] else { continue }
                let parts = path.split(separator: "/").map(String.init)
                guard let name = parts.last else { continue }
                let parent = parts.dropLast().joined(separator: "/")
                if folders[parent] == nil {
                    var opened = root
                    for part in parts.dropLast() { opened = try opened.subfolder(part) }
                    folders[parent] = opened
                }
                guard let directory = folders[parent] else { continue }
                targets.append(Target(url: url, folder: directory, name: name, size: file.size))
                written.insert(path)
            }
        }
        try await forEachConcurrently(targets, width: Self.parallel) { target in try await fetch(target) } receive: { _ in }
        return written
    }

    private func fetch(_ target: Target) async throws {
        guard target.size >= 0 else { throw Failure(description: "\(target.url): the status gives a negative size") }
        let (descriptor, temporary) = try target.folder.createTemporary(for: target.name)
        var kept = false
        defer {
            close(descriptor)
            if !kept { target.folder.remove(temporary) }
        }
        let written: Int64
        switch try Self.source(of: target.url, localResults: localResults) {
        case .local(let path):
            written = try LinkFreeFolder.copy(path, to: descriptor)
        case .remote:
            var request = HTTPRequest(
                method: "GET", url: target.url, timeouts: HTTPTimeouts(stallTime: .seconds(30), stallBytesPerSecond: 1024),
                maxResponseBytes: Int(clamping: target.size))
            request.responseDescriptor = descriptor
            let response: HTTPResponse
            do { response = try await http.send(request) } catch let error as HTTPError {
                guard case .responseTooLarge = error.kind else { throw error }
                throw Failure(description: "\(request.summary.dropFirst(4)): the server sent more than the \(target.size) bytes the status said")
            }
            guard response.status == 200 else { throw Failure(description: "GET \(request.summary.dropFirst(4)): HTTP \(response.status)") }
            written = Int64(lseek(descriptor, 0, SEEK_END))
        }
        guard written == target.size else {
            throw Failure(description: "\(target.url): got \(written) bytes, the status said \(target.size)")
        }
        try target.folder.rename(temporary, to: target.name)
        kept = true
    }

    /// Where a result URL's bytes come from.
    enum Source: Equatable {
        case remote
        case local(path: String)
    }

    /// `http(s)` URLs are fetched; a `file://` URL only when it names a file inside the embedded
    /// engine's data folder with no link on the way; anything else is refused.
    static func source(of url: String, localResults: String?) throws(Failure) -> Source {
        let lowered = url.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return .remote }
        guard lowered.hasPrefix("file://") else {
            throw Failure(description: "result URL '\(TerminalText.printable(url))' is not http(s); only http and https results are downloaded")
        }
        guard let localResults, let path = URL(string: url)?.path, !path.isEmpty else {
            throw Failure(description: "result URL '\(TerminalText.printable(url))' names a local file; only the embedded engine's own results are copied from disk")
        }
        guard let root = RealPath.of(localResults), let real = RealPath.of(path),
              real == RealPath.normalized(path), RealPath.isInside(real, root), real != root else {
            throw Failure(description: "result URL '\(TerminalText.printable(url))' is not a file of the embedded engine's data folder; not copied")
        }
        return .local(path: real)
    }
}
