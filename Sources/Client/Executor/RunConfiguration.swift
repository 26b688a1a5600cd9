import APIClients
import Foundation
import Spec

/// Everything a run needs besides the plan.
public struct RunConfiguration: Sendable {
    /// The Assembly API, such as `http://127.0.0.1:8787` or `https://api2.transloadit.com`.
    public var endpoint: String
    /// The endpoint as the user named it (`local`, or the URL): run state is kept per endpoint,
    /// so a run against another endpoint never resumes this one's Assemblies.
    public var endpointKey: String
    /// The key of the endpoint a run without `--endpoint` uses (the manifest's): a run elsewhere
    /// that does not complete everything leaves the results made there as they were.
    public var usualEndpointKey: String?
    /// The Auth Key; `nil` sends unsigned params (the local engine without credentials).
    public var authKey: String?
    /// Signs params when there is an Auth Key.
    public var signer: (any ParamsSigner)?
    /// Signature lifetime.
    public var lifetime: Duration
    /// Where the manifest lives, and everything runs keep beside it.
    public var workspace: Workspace
    /// Where inputs must really be (their links followed): the manifest's folder, or its `inputs_root`.
    public var inputsFolder: String
    /// Assemblies in flight at once.
    public var concurrency: Int
    /// Files uploaded at once per Assembly.
    public var uploadParallel: Int
    /// The longest the whole run may take.
    public var timeout: Duration
    /// Redo everything, ignoring earlier results.
    public var force: Bool
    /// A download folder and its layout per job (from the manifest or `--download`).
    public var downloads: [String: DownloadTarget]
    /// Whether `--download` named the folder: the manifest's own folders keep what runs wrote there.
    public var downloadsOverridden = false
    /// The embedded engine's data folder, when the run has one: the only place `file://` result
    /// URLs may be copied from into a download folder.
    public var localResults: String?
    /// The services of an engine in this process (the embedded one), used instead of HTTP clients of `endpoint`.
    public var services: Services?
    /// The settled poll interval: the first poll comes after a tenth of it, later ones widen up to it, then slow gently.
    public var pollInterval: Duration
    /// Polls start 5 ms after the first and double up to `pollInterval`: for a server whose status
    /// answers cost little (not the hosted service, which limits status requests), so an
    /// Assembly done in milliseconds is seen done in milliseconds. That is two polls more than
    /// the gentle start makes in the first second, and none more in the first two.
    public var eagerPolls = false
    /// Whether the run waits for its Assemblies to end (`run --no-wait` leaves them once their
    /// files are up: their entries say so, and a later run collects them).
    public var waits = true
    /// Whether the run may create Assemblies (`status --wait` only collects those an earlier
    /// `run --no-wait` left).
    public var createsAssemblies = true
    /// Each job's `smart_cdn:`, and the Auth Key and Secret its URLs are signed with (nil: none are written).
    public var smartCDN: (jobs: [String: SmartCDNSpec], key: String, secret: String)?
    /// Shard `index` of `count` when running one shard.
    public var shard: (index: Int, count: Int)?
    /// The most bytes per PATCH; `nil` lets the uploader choose.
    public var chunkSize: Int64?
    /// At most this many Assembly creations a minute (nil: as fast as the service answers).
    public var maxAssembliesPerMinute: Double?
    /// The manifest's Templates, brought in line before anything runs (even when every Assembly
    /// is cached); the plan's Templates are synced in any case.
    public var declaredTemplates: [String: DeclaredTemplate] = [:]
    /// How long the service keeps a result no store step exported (the hosted service: 24 hours):
    /// such results get an expiry in the results, after which a missing download is made again
    /// rather than fetched; nil where results are kept (the engine).
    public var resultsLifetime: Duration?
    /// Removes the embedded engine's ended Assemblies except those kept (which results name), and
    /// of those the results name only in part every other upload and result; what went. Called
    /// after a whole run that completed.
    public var pruneEngine: (@Sendable (_ keeping: EngineReferences) -> (assemblies: Int, uploads: Int, results: Int, bytes: Int64))?
    /// The service's clock, learnt from its answers: signatures expire by it.
    public var serviceClock = ServiceClock()
    /// Body sizes proxies let through, learnt from 413 answers by any upload of the run.
    public let bodyLimits = BodySizeMemory()

    /// Where the results JSON is written.
    public var resultsPath: String { workspace.resultsPath }
    /// This run's run-state file (one per shard).
    public var stateFile: String { workspace.runStateFile(shard: shard) }

    /// Creates a configuration.
    public init(
        endpoint: String, authKey: String?, signer: (any ParamsSigner)?, lifetime: Duration, workspace: Workspace,
        concurrency: Int = 4, uploadParallel: Int = 4,
        timeout: Duration = .seconds(8 * 3600), force: Bool = false, downloads: [String: DownloadTarget] = [:],
        services: Services? = nil, pollInterval: Duration = .seconds(1)
    ) {
        self.endpoint = endpoint
        endpointKey = endpoint
        self.authKey = authKey
        self.signer = signer
        self.lifetime = lifetime
        self.workspace = workspace
        inputsFolder = workspace.directory
        self.concurrency = concurrency
        self.uploadParallel = uploadParallel
        self.timeout = timeout
        self.force = force
        self.downloads = downloads
        self.services = services
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
    /// The run went on to what follows the Assemblies (writing results, downloading, cleaning up).
    case phase(RunPhase)
    /// An Assembly an earlier run left unfinished is made again from the start, saying why (its work is lost).
    case startingOver(job: String, planID: String, reason: String)
    /// A request of an Assembly failed and is tried again after `wait` (attempt `attempt` of `attempts`).
    case retrying(job: String, planID: String, reason: String, wait: Duration, attempt: Int, attempts: Int)
    /// A rate limit holds every request of the run for `wait`.
    case holding(job: String, planID: String, reason: String, wait: Duration)
    /// A cached Assembly runs again: its downloads are missing and its results are no longer on the server.
    case redoing(job: String, planID: String, reason: String)
    /// A Template of the manifest was brought in line before the Assemblies that use it.
    case template(name: String, id: String, action: TemplateSync.Action)
    /// Something the run could not keep (state it could not save) that does not stop it.
    case warning(String)
    /// The embedded engine's data no results name any more was removed: whole Assemblies, and
    /// uploads and results (of those and of sources gone from Assemblies kept for others).
    case pruned(assemblies: Int, uploads: Int, results: Int, bytes: Int64)
}

/// Where a job's results are downloaded: the folder, and the layout below it.
public struct DownloadTarget: Sendable {
    /// The download folder.
    public var folder: String
    /// Where each result lands below it.
    public var layout: DownloadLayout

    /// A target for a folder and the job's input patterns; `bundling` names the steps whose results
    /// are of all the files together (archives), which keep their own names.
    public init(folder: String, patterns: [String], bundling: Set<String> = []) {
        self.folder = folder
        self.layout = DownloadLayout(patterns: patterns, bundling: bundling)
    }
}
