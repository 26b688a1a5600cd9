import Basics
import Foundation
import Synchronization
import HTTPClient
import Wire

/// A file to upload and the metadata to send with it.
public struct UploadFile: Sendable {
    /// The path of the file.
    public var path: String
    /// `Upload-Metadata` pairs (such as `filename`, `filetype`).
    public var metadata: [String: String]
    /// The file's SHA-256 (hex) as a plan measured it, with the modification time of the version
    /// hashed: a file sent in one request then needs no hashing of its own.
    public var known: (sha256: String, modified: Int64)?

    /// Creates an upload description.
    public init(path: String, metadata: [String: String], known: (sha256: String, modified: Int64)? = nil) {
        self.path = path
        self.metadata = metadata
        self.known = known
    }
}

/// Uploads many files to one tus endpoint, `options.parallel` at a time over one shared
/// connection pool, each resumable across failures and process restarts.
public struct TusUploader: Sendable {
    /// The requests.
    public let client: TusClient
    /// How uploads behave.
    public let options: UploadOptions

    /// What servers offer, asked once per endpoint however many batches go there.
    let known: TusCapabilityCache

    /// Creates an uploader for `endpoint`; batches sharing `known` ask each endpoint's capabilities once.
    public init(
        endpoint: String, options: UploadOptions, http: HTTPClient, headers: [(name: String, value: String)] = [],
        known: TusCapabilityCache = TusCapabilityCache()
    ) {
        client = TusClient(http: http, endpoint: endpoint, headers: headers)
        self.options = options
        self.known = known
    }

    /// Uploads every file; the results are in the order of `files`. A file that fails does not
    /// stop the others.
    public func upload(
        _ files: [UploadFile], progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>] {
        let capabilities = try await known.capabilities(of: client.endpoint) { try await discoverCapabilities() }
        let store = options.stateDirectory.map { ResumeStore(directory: $0) }
        let handoff = options.handoff ? known.handoff(to: client.endpoint, offer: capabilities.handoff) : nil
        let uploader = FileUploader(client: client, capabilities: capabilities, options: options, store: store, handoff: handoff)
        var results = [Result<UploadResult, any Error>?](repeating: nil, count: files.count)
        try await forEachConcurrently(Array(files.indices), width: options.parallel) { index in
            do {
                return (index, Result<UploadResult, any Error>.success(try await uploader.upload(
                    index: index, path: files[index].path, metadata: files[index].metadata, known: files[index].known, progress: progress)))
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                return (index, .failure(error))
            }
        } receive: { index, result in
            results[index] = result
        }
        return results.map { $0 ?? .failure(CancellationError()) }
    }

    /// OPTIONS, once per batch, retried with the same delays as uploads when the server cannot
    /// be reached (it may be restarting). A server that answers but not properly is treated as
    /// offering only the core protocol; one that stays unreachable stops the batch.
    private func discoverCapabilities() async throws -> TusCapabilities {
        do {
            return try await options.retryPolicy.run(on: options.clock) { error in
                (error as? TusError)?.kind == .transport ? RetryPolicy.Advice.none : nil
            } _: {
                try await client.capabilities()
            }
        } catch let error as TusError where error.kind == .transport {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return TusCapabilities(extensions: ["creation"])
        }
    }
}

/// Each tus endpoint's capabilities, asked once (one `OPTIONS`, however many batches ask at
/// once) and kept for as long as the cache lives: a run's. So is a local engine's handoff client,
/// with the connections it keeps for the next batch.
public final class TusCapabilityCache: Sendable {
    private let asked = Mutex<[String: Task<TusCapabilities, any Error>]>([:])
    private let handoffs = Mutex<[String: HandoffClient]>([:])

    /// Creates an empty cache.
    public init() {}

    /// The capabilities of `endpoint`, from `discover` the first time; a failed discovery is not kept.
    func capabilities(of endpoint: String, discover: @escaping @Sendable () async throws -> TusCapabilities) async throws -> TusCapabilities {
        let task = asked.withLock { asked in
            if let task = asked[endpoint] { return task }
            let task = Task { try await discover() }
            asked[endpoint] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            asked.withLock { if $0[endpoint] == task { $0[endpoint] = nil } }
            throw error
        }
    }

    /// The handoff client for `endpoint`, made from its `offer` the first time; `nil` where none
    /// may be used (see `HandoffClient.init`).
    func handoff(to endpoint: String, offer: LocalHandoff.Offer?) -> HandoffClient? {
        handoffs.withLock { made in
            if let client = made[endpoint] { return client }
            made[endpoint] = HandoffClient(offer: offer, endpoint: endpoint)
            return made[endpoint]
        }
    }
}
