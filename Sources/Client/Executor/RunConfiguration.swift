import Foundation

/// Everything a run needs besides the plan.
public struct RunConfiguration: Sendable {
    /// The Assembly API, such as `http://127.0.0.1:8787` or `https://api2.transloadit.com`.
    public var endpoint: String
    /// The endpoint as the user named it (`local`, or the URL): run state is kept per endpoint,
    /// so a run against another endpoint never resumes this one's Assemblies.
    public var endpointKey: String
    /// The Auth Key; `nil` sends unsigned params (the local engine without credentials).
    public var authKey: String?
    /// Signs params when there is an Auth Key.
    public var signer: (any ParamsSigner)?
    /// Signature lifetime.
    public var lifetime: Duration
    /// The folder holding the manifest; plan paths are relative to it.
    public var baseDirectory: String
    /// `.pipeline/` beside the manifest: run state and upload resume state.
    public var stateDirectory: String
    /// Where the results JSON is written.
    public var resultsPath: String
    /// Assemblies in flight at once.
    public var concurrency: Int
    /// Files uploaded at once per Assembly.
    public var uploadParallel: Int
    /// The longest the whole run may take.
    public var timeout: Duration
    /// Redo everything, ignoring earlier results.
    public var force: Bool
    /// A download folder per job (from the manifest or `--download`).
    public var downloads: [String: String]
    /// Turns result URLs into ones that outlive the run (the embedded engine's `file://` URLs).
    public var rewriteURL: (@Sendable (String) -> String)?
    /// The first poll interval (later polls slow down gently).
    public var pollInterval: Duration
    /// `I/N` when running one shard, recorded in the results.
    public var shard: String?
    /// The run state's file name in `stateDirectory` (one per shard, so shards never share it).
    public var stateFile = "run-state.json"
    /// The most bytes per PATCH; `nil` lets the uploader choose.
    public var chunkSize: Int64?
    /// Body sizes proxies let through, learnt from 413 answers by any upload of the run.
    public let bodyLimits = BodySizeMemory()

    /// Creates a configuration.
    public init(
        endpoint: String, authKey: String?, signer: (any ParamsSigner)?, lifetime: Duration, baseDirectory: String,
        stateDirectory: String, resultsPath: String, concurrency: Int = 4, uploadParallel: Int = 4,
        timeout: Duration = .seconds(8 * 3600), force: Bool = false, downloads: [String: String] = [:],
        rewriteURL: (@Sendable (String) -> String)? = nil, pollInterval: Duration = .seconds(1)
    ) {
        self.endpoint = endpoint
        endpointKey = endpoint
        self.authKey = authKey
        self.signer = signer
        self.lifetime = lifetime
        self.baseDirectory = baseDirectory
        self.stateDirectory = stateDirectory
        self.resultsPath = resultsPath
        self.concurrency = concurrency
        self.uploadParallel = uploadParallel
        self.timeout = timeout
        self.force = force
        self.downloads = downloads
        self.rewriteURL = rewriteURL
        self.pollInterval = pollInterval
    }
}

/// What happens during a run, for the CLI to show.
public enum RunEvent: Sendable {
    /// The run begins: Assemblies to run and how many are cached.
    case started(assemblies: Int, cached: Int, files: Int, bytes: Int64)
    /// An Assembly was created (or found again after a restart).
    case created(job: String, planID: String, assemblyID: String, resumed: Bool)
    /// Bytes sent so far (confirmed, or on the wire), over all Assemblies.
    case uploaded(bytes: Int64, total: Int64)
    /// An Assembly reached its end.
    case finished(RunResults.Entry)
}
