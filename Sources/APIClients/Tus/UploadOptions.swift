import Basics
import Synchronization
import Wire

/// How uploads behave: chunking, retries, checksums, parallelism and where resume state lives.
public struct UploadOptions: Sendable {
    /// Whether to send `Upload-Checksum`.
    public enum ChecksumMode: Sendable, Equatable {
        /// CRC-32 when the server offers it; otherwise the plan's SHA-256 on a whole-file request
        /// when the server takes SHA-256 and the plan has it, else none: never a second pass over the bytes.
        case automatic
        /// The first the server offers of `ChecksumAlgorithm.preferred`, on every request, however
        /// much hashing it costs (`pipeline upload --checksum auto`).
        case firstOffered
        /// Never send checksums.
        case off
        /// Use this algorithm (the server must offer it).
        case algorithm(ChecksumAlgorithm)
    }

    /// The most bytes per PATCH; `nil` sends the whole remainder in one request, unless
    /// checksums are sent: then `checksumChunkSize`.
    public var chunkSize: Int64?
    /// The PATCH size when checksums are sent and no chunk size is set. A server must discard
    /// an interrupted body it cannot verify, so a dropped connection loses at most one chunk.
    public static let checksumChunkSize: Int64 = 8 << 20
    /// Delays before each retry; the attempt counter resets whenever the offset moves forward.
    public var retryDelays: [Duration]
    /// Checksums per PATCH.
    public var checksum: ChecksumMode
    /// Files uploaded at the same time.
    public var parallel: Int
    /// Where upload URLs are remembered for resuming; `nil` keeps nothing on disk.
    public var stateDirectory: String?
    /// Files up to this size go in the creating POST when the server supports it.
    public var creationWithUploadLimit: Int64
    /// Body sizes learnt from 413 answers; share one instance between uploads to the same servers.
    public var bodyLimits: BodySizeMemory
    /// Whether finished uploads stay in the resume state, so that running the same upload again
    /// (after an interruption) asks the server once and sends none of their bytes again.
    public var remembersFinished = false
    /// Hand files to a local engine that offers it as open descriptors instead of sending their
    /// bytes (`LocalHandoff`); off, every byte goes over HTTP.
    public var handoff = true
    /// Holds every request of the run while a rate limit is in force (a 429 met by one upload
    /// pauses them all); nil: each upload waits out only its own.
    public var hold: (any RequestHold)?
    /// Files must be inside this folder once opened (their links followed); nil takes any file.
    /// A service that reads them where they are checks it on the file it opened.
    public var confinedTo: String?
    /// The clock retries wait on: the machine's, or the run's own (tests give one they move).
    public var clock: any MonotonicClock = SystemClock()

    /// How uploads retry: after each of `retryDelays`, a rate limit after its `Retry-After` (at
    /// most an hour) and at least a second.
    public var retryPolicy: RetryPolicy { Self.retryPolicy(delays: retryDelays) }

    /// The retry policy of uploads waiting `delays` before their retries.
    public static func retryPolicy(delays: [Duration]) -> RetryPolicy {
        RetryPolicy(attempts: delays.count + 1, backoff: Backoff(.listed(delays)), longestStatedWait: .seconds(3600), shortestRateLimitWait: .seconds(1))
    }

    /// Creates options; the defaults follow tus-js-client where it is sound.
    public init(
        chunkSize: Int64? = nil, retryDelays: [Duration] = [.zero, .seconds(1), .seconds(3), .seconds(5)],
        checksum: ChecksumMode = .automatic, parallel: Int = 4, stateDirectory: String? = nil,
        creationWithUploadLimit: Int64 = 4 << 20, bodyLimits: BodySizeMemory = BodySizeMemory()
    ) {
        self.bodyLimits = bodyLimits
        self.chunkSize = chunkSize
        self.retryDelays = retryDelays
        self.checksum = checksum
        self.parallel = parallel
        self.stateDirectory = stateDirectory
        self.creationWithUploadLimit = creationWithUploadLimit
    }
}

/// Progress of one file: bytes the server confirmed, and bytes sent but not yet confirmed.
public struct UploadProgress: Sendable, Equatable {
    /// The file's index in the batch.
    public var index: Int
    /// Bytes the server has confirmed.
    public var confirmed: Int64
    /// Bytes sent in the current request, not yet confirmed.
    public var inFlight: Int64
    /// The file's size.
    public var total: Int64

    /// Creates a progress report.
    public init(index: Int, confirmed: Int64, inFlight: Int64, total: Int64) {
        (self.index, self.confirmed, self.inFlight, self.total) = (index, confirmed, inFlight, total)
    }
}

/// A finished upload.
public struct UploadResult: Sendable, Equatable {
    /// The file's index in the batch.
    public var index: Int
    /// The file as given.
    public var path: String
    /// The upload's URL on the server.
    public var url: String
    /// The file's size.
    public var size: Int64
    /// The offset the upload resumed from (0 for a fresh upload).
    public var resumedFrom: Int64

    /// Creates a result.
    public init(index: Int, path: String, url: String, size: Int64, resumedFrom: Int64) {
        self.index = index
        self.path = path
        self.url = url
        self.size = size
        self.resumedFrom = resumedFrom
    }
}

/// What proxies let through, per endpoint: request body sizes, learnt from 413 answers, and
/// whether chunked trailers arrive, learnt from a refused trailer; shared by every upload that
/// uses the same options (so one refusal teaches the whole run).
public final class BodySizeMemory: Sendable {
    /// PATCHes never get smaller than this.
    public static let smallest = TusProtocol.smallestChunk

    private let limits = Mutex<[String: Int64]>([:])
    private let trailersRefused = Mutex<Set<String>>([])

    /// Whether a trailer sent to `endpoint` was refused (its checksums then go in headers).
    public func refusesTrailers(for endpoint: String) -> Bool {
        trailersRefused.withLock { $0.contains(Self.origin(endpoint)) }
    }

    /// Remembers that `endpoint` (or a proxy in front of it) refused a checksum trailer.
    public func refuseTrailers(for endpoint: String) {
        _ = trailersRefused.withLock { $0.insert(Self.origin(endpoint)) }
    }

    /// Creates an empty memory.
    public init() {}

    /// The largest body known to pass for `endpoint`, if a 413 was seen.
    public func limit(for endpoint: String) -> Int64? {
        limits.withLock { $0[Self.origin(endpoint)] }
    }

    /// Halves the limit after a 413 for a body of `size`; `false` when already at the smallest.
    public func shrink(for endpoint: String, from size: Int64) -> Bool {
        limits.withLock { limits in
            let key = Self.origin(endpoint)
            let current = min(limits[key] ?? size, size)
            guard current > Self.smallest else { return false }
            limits[key] = max(Self.smallest, current / 2)
            return true
        }
    }

    /// `scheme://host:port` of a URL: a proxy's limit holds for everything behind it.
    private static func origin(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        return String(url[..<schemeEnd.upperBound]) + String(rest.prefix { $0 != "/" })
    }
}

/// A pause that every request of a run waits out once a rate limit was met.
public protocol RequestHold: Sendable {
    /// Holds every request for `duration` from now (a longer pause in force stays).
    func pause(for duration: Duration) async
    /// Returns once no pause is in force.
    func waitOutPause() async throws
}
