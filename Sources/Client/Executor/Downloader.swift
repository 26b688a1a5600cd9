import Basics
import Crypto
import Foundation
import HTTPClient
import Wire

/// Fetches an Assembly's result files into its download folder, where `DownloadLayout` places
/// them, a few at once. A result already there (its size, and its MD5 where the server gave
/// one) is never fetched again: the service asks that each temporary result be downloaded once.
/// Every download is checked against the size and MD5 the status gave; a rate limit or a
/// server's failure is retried after its `Retry-After` or a backoff. Only `http`/`https` URLs
/// are fetched, except the embedded engine's `file://` URLs inside its own data folder; files
/// are streamed to disk and written without following links below the folder the user named.
struct Downloader: Sendable {
    let http: HTTPClient
    /// The embedded engine's data folder: the one place `file://` result URLs may name.
    let localResults: String?
    /// The folder that is the user's own (the manifest's): links above it are theirs to keep.
    let trusted: String?
    /// The clock retries wait on (the run's).
    var clock: any MonotonicClock = SystemClock()
    /// The MD5s of downloads already checked, so that one still as it was is not read again.
    var digests: DownloadDigests?

    /// Files fetched at once.
    static let parallel = 4
    /// Rate limits and failures that may pass: four tries per file, after the `Retry-After` (at
    /// most `longestWait`), else 1, 2, 4 s.
    static let retryPolicy = RetryPolicy(attempts: 4, backoff: .doubling(cap: .seconds(4)), longestStatedWait: .seconds(longestWait))
    /// The most bytes taken for a result whose size the server did not give.
    static let unsizedLimit: Int64 = 64 << 30
    /// The longest `Retry-After` waited for, in seconds.
    static let longestWait = 60.0

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// Whether another try may help (a rate limit, a server's failure, a cut transfer).
        var isTransient = false
        /// The seconds the server asked to wait.
        var retryAfter: Double?
    }

    /// What downloading one entry did.
    struct Report: Sendable {
        /// The paths (below the folder, byte for byte) that hold the entry's results now.
        var written: Set<ExactName> = []
        /// Why missing results cannot be fetched any more (expired on the service, 404 or 410, an
        /// engine file gone): work to redo.
        var gone: [String] = []
    }

    private struct Target: Sendable {
        var file: RunResults.ResultFile
        var url: String
        var folder: LinkFreeFolder
        var name: String
        /// Below the download folder, as `DownloadLayout` gave it.
        var path: String

        /// Where the file is, as the digests remember it.
        var fullPath: String { folder.path + "/" + name }
    }

    /// Downloads the entry's results to `paths` (per step, each result's path below `folder`, as
    /// `DownloadLayout` gives them), skipping those in place; a missing result whose temporary
    /// URL expired by `now` is not asked for.
    func download(_ entry: RunResults.Entry, into folder: String, paths: [String: [String?]], now: Date) async throws -> Report {
        let targets = try targets(entry, into: folder, paths: paths)
        var report = Report(written: Set(targets.map { ExactName($0.path) }))
        var wanted: [Target] = []
        for target in targets where !isInPlace(target) {
            if let expires = target.file.expires, expires <= now {
                report.gone.append("it expired on the service at \(AuthParams.expires(expires))")
            } else {
                wanted.append(target)
            }
        }
        try await forEachConcurrently(wanted, width: Self.parallel) { target in try await fetch(target) } receive: { gone in
            if let gone { report.gone.append(gone) }
        }
        return report
    }

    private func targets(_ entry: RunResults.Entry, into folder: String, paths: [String: [String?]]) throws -> [Target] {
        let root = try LinkFreeFolder.open(folder, below: trusted)
        var folders: [ExactName: LinkFreeFolder] = [:]
        var targets: [Target] = []
        for (step, files) in entry.results.sorted(by: { ByteOrder.precedes($0.key, $1.key) }) {
            for (index, file) in files.enumerated() {
                guard let url = file.url, let path = paths[step]?[index] else { continue }
                let parts = path.split(separator: "/").map(String.init)
                guard let name = parts.last else { continue }
                let parent = ExactName(parts.dropLast().joined(separator: "/"))
                if folders[parent] == nil {
                    var opened = root
                    for part in parts.dropLast() { opened = try opened.subfolder(part) }
                    folders[parent] = opened
                }
                guard let directory = folders[parent] else { continue }
                targets.append(Target(file: file, url: url, folder: directory, name: name, path: path))
            }
        }
        return targets
    }

    /// Whether the target's file is there with the size and MD5 the status gave.
    private func isInPlace(_ target: Target) -> Bool {
        guard let descriptor = target.folder.openFile(target.name) else { return false }
        defer { close(descriptor) }
        guard check(descriptor, target.file, path: target.fullPath) == nil else { return false }
        AtomicFile.narrowPermissions(of: descriptor)
        return true
    }

    /// Why the open file does not hold `file`'s bytes (its size, then its MD5); nil when it does.
    /// An MD5 is read only when `digests` does not know the file as it is, and remembered for `path`.
    private func check(_ descriptor: Int32, _ file: RunResults.ResultFile, path: String) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "cannot be read" }
        if let size = file.size, Int64(info.st_size) != size { return "holds \(info.st_size) bytes, the status said \(size)" }
        guard let md5 = file.md5 else { return nil }
        if digests?.md5(of: path, info: info) == md5 { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let hex: String
        do { hex = Hex.encode(try StreamingDigest.file(opened: descriptor, path: path, algorithm: .md5, buffer: &buffer).digest) } catch {
            return "cannot be read (\(error))"
        }
        guard hex == md5 else { return "has the MD5 \(hex), the status said \(md5)" }
        digests?.record(path, info: info, md5: md5)
        return nil
    }

    /// Fetches one file, trying again after rate limits and passing failures; why, when the
    /// server no longer has it.
    private func fetch(_ target: Target) async throws -> String? {
        try await Self.retryPolicy.run(on: clock) { error in
            guard let failure = error as? Failure, failure.isTransient else { return nil }
            return RetryPolicy.Advice(statedSeconds: failure.retryAfter)
        } _: {
            switch try Self.source(of: target.url, localResults: localResults) {
            case .gone:
                return "\(Self.shown(target.url)) is no longer in the engine's data folder"
            case .local(let path):
                do {
                    _ = try await write(target) { descriptor in _ = try LinkFreeFolder.copy(path, to: descriptor); return true }
                } catch let failure as Failure {
                    // Not the bytes the engine made (cut short, changed on disk): made again, never kept.
                    return "\(failure.description); the engine's copy is damaged"
                }
                return nil
            case .remote:
                let filled = try await write(target) { descriptor in try await fetchRemote(target, into: descriptor) }
                return filled ? nil : "\(Self.shown(target.url)) is gone from the server"
            }
        }
    }

    /// Fetches a remote result into `descriptor`; false when the server answers that it is gone (404, 410).
    private func fetchRemote(_ target: Target, into descriptor: Int32) async throws -> Bool {
        var request = HTTPRequest(
            method: "GET", url: target.url, timeouts: HTTPTimeouts(stallTime: .seconds(30), stallBytesPerSecond: 1024),
            maxResponseBytes: Int(clamping: target.file.size ?? Self.unsizedLimit))
        request.responseDescriptor = descriptor
        let shown = Self.shown(target.url)
        let response: HTTPResponse
        do { response = try await http.send(request) } catch let error as HTTPError {
            if case .responseTooLarge = error.kind {
                let limit = target.file.size.map { "the \($0) bytes the status said" } ?? "the \(Self.unsizedLimit) bytes a result of no stated size may have"
                throw Failure(description: "\(shown): the server sent more than \(limit)")
            }
            throw Failure(description: "GET \(shown): \(error.message)", isTransient: error.isTransient)
        }
        switch response.status {
        case 200: return true
        case 404, 410: return false
        case 429, 500...599:
            throw Failure(description: "GET \(shown): HTTP \(response.status)", isTransient: true, retryAfter: response.retryAfter)
        default: throw Failure(description: "GET \(shown): HTTP \(response.status)")
        }
    }

    /// Fills a temporary file beside the target with `fill`, checks it against the status, and
    /// puts it in place; false (and nothing left behind) when `fill` found the file gone.
    private func write(_ target: Target, _ fill: (Int32) async throws -> Bool) async throws -> Bool {
        let (descriptor, temporary) = try target.folder.createTemporary(for: target.name)
        var kept = false
        defer {
            close(descriptor)
            if !kept { target.folder.remove(temporary) }
        }
        guard try await fill(descriptor) else { return false }
        if let problem = check(descriptor, target.file, path: target.fullPath) {
            throw Failure(description: "\(Self.shown(target.url)): the download \(problem)", isTransient: true)
        }
        try target.folder.rename(temporary, to: target.name)
        kept = true
        // A rename changes the inode's change time: the file is remembered as it is in place.
        var placed = stat()
        // Recorded without an MD5 too: the record is what lets a later run remove the file as its own (`DownloadLedger`).
        if fstat(descriptor, &placed) == 0 { digests?.record(target.fullPath, info: placed, md5: target.file.md5 ?? "") }
        return true
    }

    /// A result URL as messages show it: without its query (a signed URL's signature) and printable.
    static func shown(_ url: String) -> String {
        TerminalText.printable(String(url.prefix { $0 != "?" && $0 != "#" }))
    }

    /// Where a result URL's bytes come from.
    enum Source: Equatable {
        case remote
        case local(path: String)
        /// A file of the engine's data folder that is no longer there.
        case gone
    }

    /// `http(s)` URLs are fetched (unless the run's engine is the embedded one, whose results
    /// are all its own files); a `file://` URL only when it names a file inside the embedded
    /// engine's data folder with no link on the way; anything else is refused.
    static func source(of url: String, localResults: String?) throws(Failure) -> Source {
        let lowered = url.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard localResults == nil else {
                throw Failure(description: "result URL '\(shown(url))' is remote, and the embedded engine's results are its own files; not fetched")
            }
            return .remote
        }
        guard lowered.hasPrefix("file://") else {
            throw Failure(description: "result URL '\(shown(url))' is not http(s); only http and https results are downloaded")
        }
        guard let localResults, let path = URL(string: url)?.path, !path.isEmpty else {
            throw Failure(description: "result URL '\(shown(url))' names a local file; only the embedded engine's own results are copied from disk")
        }
        let root = RealPath.of(localResults)
        if let root, RealPath.of(path) == nil, RealPath.isInside(RealPath.normalized(path), root) { return .gone }
        guard let root, let real = RealPath.of(path),
              real == RealPath.normalized(path), RealPath.isInside(real, root), real != root else {
            throw Failure(description: "result URL '\(shown(url))' is not a file of the embedded engine's data folder; not copied")
        }
        return .local(path: real)
    }
}
