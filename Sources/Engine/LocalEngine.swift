import APIClients
import Basics
import Wire
import Foundation
import HTTPClient
import HTTPServer
import Spec

/// The local engine behind `pipeline serve`: the Assembly API, a tus server and local robots
/// over one HTTP server, with all state in a data folder that survives restarts.
public final class LocalEngine: Sendable {
    /// Settings for the engine.
    public struct Configuration: Sendable {
        /// Where uploads, Assemblies and results are kept.
        public var dataDirectory: String
        /// The largest upload accepted.
        public var maxUploadSize: Int64
        /// How long an unfinished upload is kept.
        public var uploadLifetime: TimeInterval
        /// The Auth Key and Secret; without them unsigned requests are accepted.
        public var credentials: (key: String, secret: String)?
        /// A policy every Assembly must pass.
        public var policy: Policy?
        /// At most this many Assembly creations per window; more get 429 `RATE_LIMIT_REACHED`.
        public var rateLimit: (count: Int, window: TimeInterval)?
        /// Writes that would leave less than this many bytes free in the data folder get 507.
        public var reservedSpace: Int64 = 16 << 20
        /// What robots take: media duration and image size.
        public var robotLimits = RobotLimits()
        /// The named credentials storage steps may use (by default, the process's
        /// `PIPELINE_CREDENTIALS_*` variables).
        public var storage = StorageCredentials(environment: ProcessInfo.processInfo.environment)
        /// Offer tus `checksum-trailer` to every client, not only to those that reach the engine
        /// directly: for a proxy in front that passes chunked bodies through unbuffered.
        public var trailersBehindProxy = false
        /// Offer clients on this machine the same-machine handoff (`LocalHandoff`): they send each
        /// upload's file as an open descriptor over a Unix socket in the data folder instead of its
        /// bytes over HTTP. Only when listening on a loopback address, without TLS, and with no
        /// proxy in front (`--public-url`, `--trust-proxy`).
        public var handoff = true
        /// When another engine uses the data folder: nil fails at once; otherwise this is called and
        /// the engine waits its turn (commands sharing a project's embedded engine).
        public var whileWaitingForTheFolder: (@Sendable () -> Void)?
        /// Polled while waiting for the folder: true gives up (`WaitInterrupted`).
        public var stopWaiting: (@Sendable () -> Bool)?
        /// How Assemblies' ends are announced to their `notify_url` (which addresses it may
        /// reach follows `robotLimits.importsFromLoopback`, as the import robot does).
        public var notifyRetryDelays: [Duration] = AssemblyNotifier.Settings().retryDelays
        /// The clock the engine's waits and deadlines use; tests give one they move.
        public var clock: any MonotonicClock = SystemClock()
        /// The secret notifications are signed with when the engine has no `credentials` (the
        /// embedded engine signs with the runner's Auth Secret, when it has one).
        public var notificationSecret: String?
        /// Told of every notification attempt; `warn` hears of those given up when nil.
        public var notificationLog: (@Sendable (String) -> Void)?
        /// How long what ended Assemblies leave is kept, swept on a schedule; nil (the embedded
        /// engine) keeps it until a collection removes what no current results name.
        public var retention: EngineRetention?
        /// Share state and files with other engines (`serve --state`, `--store`); nil keeps both in
        /// the data folder, which then holds only this engine's local copies and spool.
        public var shared: SharedBackend?
        /// Told of each retention sweep that removed something.
        public var retentionLog: (@Sendable (String) -> Void)?
        /// Told what the engine could not keep (an Assembly it could not save); standard error by default.
        public var warn: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("pipeline: warning: \(message)\n".utf8))
        }

        /// Creates a configuration.
        public init(
            dataDirectory: String, maxUploadSize: Int64 = 16 << 30, uploadLifetime: TimeInterval = 24 * 3600,
            credentials: (key: String, secret: String)? = nil, policy: Policy? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.maxUploadSize = maxUploadSize
            self.uploadLifetime = uploadLifetime
            self.credentials = credentials
            self.policy = policy
        }
    }

    /// The tus creation path.
    public static let tusPath = "/resumable/files/"

    /// The HTTP server; nil for an engine serving only its own process (`embedded`).
    private let server: HTTPServer?
    private let executor: AssemblyExecutor
    let assemblyAPI: AssemblyAPI
    let templateAPI: TemplateAPI
    let uploadLinks: AssemblyUploads
    /// The data folder.
    public let dataDirectory: String
    /// Assembly records read at start: the live ones (every one, once, for a folder from before the index).
    var recordsReadAtStart: Int { executor.store.readAtStart }
    /// Status requests held now (`StatusWait`).
    var heldStatusRequests: Int { executor.store.heldCount }
    /// Assemblies running their steps, and waiting for a turn.
    var assemblyLoad: (running: Int, queued: Int) { executor.load }
    private let assembliesDirectory: String
    private let lock: DataFolderLock
    private let handoff: HandoffServer?
    private let notifier: AssemblyNotifier
    /// The retention sweep, when the engine has a retention.
    let sweep: RetentionSweep?
    /// The database and bucket shared with other engines, when they are.
    private let shared: SharedBackend.Opened?
    /// Whether clients on this machine are offered the handoff, and where, or why not.
    public let handoffState: HandoffState

    /// Whether an engine offers the same-machine handoff.
    public enum HandoffState: Sendable, Equatable {
        /// Not asked for, or not for this engine (not on a loopback address, TLS, a proxy in front).
        case off
        /// Offered on the socket at this path.
        case offered(socket: String)
        /// Asked for, but the socket could not be made: why.
        case unavailable(String)
    }

    /// The port the engine listens on (0 for an engine without a server).
    public var port: UInt16 { server?.port ?? 0 }

    /// Starts the engine on `server` settings; `log` receives one line per request.
    public convenience init(_ configuration: Configuration, server settings: HTTPServer.Configuration, log: (@Sendable (String) -> Void)? = nil) throws {
        try self.init(configuration, serving: settings, log: log)
    }

    /// Starts an engine for this process only: no port and no handoff; its `services` create
    /// Assemblies, take files where they are and give results as paths.
    public static func embedded(_ configuration: Configuration) throws -> LocalEngine {
        try LocalEngine(configuration, serving: nil, log: nil)
    }

    private init(_ configuration: Configuration, serving settings: HTTPServer.Configuration?, log: (@Sendable (String) -> Void)?) throws {
        Self.prepareProcess()
        // Absolute: records name their files relative to it, and check them against it.
        let data = RealPath.normalized(configuration.dataDirectory)
        dataDirectory = data
        lock = try DataFolderLock(
            folder: data, wait: configuration.whileWaitingForTheFolder != nil, waiting: { configuration.whileWaitingForTheFolder?() },
            stop: { configuration.stopWaiting?() ?? false })
        let layout = EngineDataLayout(data)
        assembliesDirectory = layout.assemblies
        try Self.sweepIncoming(layout.incoming)
        let space = DiskSpace(directory: data, reserve: configuration.reservedSpace)
        let shared = try configuration.shared?.open(data: data, maximumUpload: configuration.maxUploadSize, warn: configuration.warn)
        self.shared = shared
        let uploads = try UploadStore(directory: shared == nil ? layout.uploads : data + "/tus-spool", sharing: shared?.uploads)
        let assemblies: any AssemblyRecords
        if let shared {
            assemblies = try SharedAssemblyStore(state: shared.state, directory: layout.assemblies, clock: configuration.clock, warn: configuration.warn)
        } else {
            assemblies = try AssemblyStore(directory: layout.assemblies, warn: configuration.warn, clock: configuration.clock)
            // Before anything can reach them (a server, the handoff, an upload finishing).
            try Self.abandonHandedOver(assemblies, results: layout.results)
        }
        executor = AssemblyExecutor(
            store: assemblies, resultsDirectory: layout.results, limits: configuration.robotLimits, storage: configuration.storage,
            queue: shared?.queue, files: shared?.files)
        let addresses: StatusAddresses = settings == nil ? .files(dataDirectory: data) : .served(origin: nil)
        notifier = AssemblyNotifier(
            store: assemblies, secret: configuration.credentials?.secret ?? configuration.notificationSecret,
            settings: .init(retryDelays: configuration.notifyRetryDelays, policy: AddressPolicy(allowsLoopback: configuration.robotLimits.importsFromLoopback), clock: configuration.clock),
            status: { AssemblyStatus.document($0, tusPath: Self.tusPath, addresses: addresses) },
            log: configuration.notificationLog, warn: configuration.warn,
            leases: shared.map { SharedDeliveries(state: $0.state, warn: configuration.warn) })
        let notifier = notifier
        assemblies.observeEnds { notifier.ended($0) }
        let links = AssemblyUploads(assemblies: assemblies, uploads: uploads, executor: executor)
        let executor = self.executor
        var tus = TusEndpoint(
            store: uploads, basePath: Self.tusPath, maxSize: configuration.maxUploadSize, lifetime: configuration.uploadLifetime, space: space,
            onCreated: { links.created($0) }, onFinished: { links.finished($0) })
        if configuration.credentials != nil { tus.admits = { links.accepts($0) } }
        tus.hasEnded = { links.hasEnded($0) }
        tus.trailersBehindProxy = configuration.trailersBehindProxy
        tus.clock = configuration.clock
        // Only where every client is on this machine: a client elsewhere could not open the socket,
        // and a remote server's offer is never taken (the client checks the endpoint is loopback too).
        let loopback = settings.map { $0.host == "127.0.0.1" || $0.host == "::1" || $0.host == "localhost" } ?? false
        let proxied = settings?.origin?.fixed != nil || settings?.origin?.trustProxy == true
        if configuration.handoff, loopback, !proxied, settings?.tls == nil, shared == nil {
            do throws(FileError) {
                let made = try HandoffServer(folder: data, tus: tus, log: log)
                (handoff, handoffState) = (made, .offered(socket: made.offer.path))
            } catch {
                (handoff, handoffState) = (nil, .unavailable(error.code == ENAMETOOLONG
                    ? "the data folder's path is too long for a socket (at most \(MessageSocket.maxPathLength) bytes with /handoff.sock)" : "\(error)"))
            }
        } else {
            (handoff, handoffState) = (nil, .off)
        }
        tus.handoff = handoff?.offer
        let auth = try configuration.credentials.map { credentials in
            let ledger: any UsedSignatures = try shared.map { SharedSignatures(state: $0.state, warn: configuration.warn) } ?? SignatureLedger(path: data + "/signatures.log")
            return AssemblyAuth(key: credentials.key, secret: credentials.secret, ledger: ledger)
        }
        let limit = configuration.rateLimit.map { limit -> any CreationLimit in
            shared.map { SharedCreationLimit(state: $0.state, limit: limit.count, window: limit.window) }
                ?? RateLimiter(limit: limit.count, window: limit.window, clock: configuration.clock)
        }
        let templateStore: any TemplateRecords = try shared.map { SharedTemplates(state: $0.state, warn: configuration.warn) }
            ?? TemplateStore(directory: data + "/templates", warn: configuration.warn)
        let api = AssemblyAPI(
            store: assemblies, templates: templateStore, executor: executor, auth: auth,
            policy: configuration.policy, rateLimiter: limit,
            dataDirectory: data, maxUploadSize: configuration.maxUploadSize, space: space, onCancel: { links.discard($0) }, renotify: { notifier.ended($0) })
        let templates = TemplateAPI(store: templateStore, auth: auth, dataDirectory: data)
        (assemblyAPI, templateAPI, uploadLinks) = (api, templates, links)
        // Engines sharing a bucket keep what it holds for as long as its lifecycle rules say.
        let folderStore = assemblies as? AssemblyStore
        let sweep = configuration.retention.flatMap { retention in folderStore.map { folderStore in
            RetentionSweep(
                retention: retention, store: folderStore, uploads: uploads, dataDirectory: data, uploadLifetime: configuration.uploadLifetime,
                clock: configuration.clock, log: configuration.retentionLog ?? configuration.warn)
        } }
        self.sweep = sweep
        var health = EngineHealth.Source(store: assemblies, executor: executor, sweep: sweep)
        if let pool = shared?.state.pool { health.databaseRoundTrips = { pool.roundTrips } }
        if var settings {
            settings.origin = settings.origin ?? PublicOrigin()
            do {
                server = try HTTPServer(settings, handler: EngineHandler(tus: tus, assemblies: api, templates: templates, health: health), log: log)
            } catch {
                handoff?.stop()
                throw error
            }
        } else {
            server = nil
        }
        if let shared {
            // Runs are claimed from the shared queue; one whose engine died is claimed once its lease runs out.
            // Announcements whose engine died are taken up by another.
            shared.state.periodically(every: .seconds(5)) { [notifier] in notifier.resumePending() }
            shared.state.periodically(every: .seconds(600)) { [executor] in
                shared.files.sweepLocalCopies(olderThan: 3600, keeping: executor.runningHere)
            }
            shared.state.start()
            executor.startClaiming()
        } else {
            executor.resumeInterrupted()
            // Uploads are read only for Assemblies still waiting for them, from a minute before the oldest was made.
            if let oldest = assemblies.live.filter({ $0.phase == .uploading }).map(\.created).min() {
                links.tieAgain(uploads.stored(writtenSince: oldest.addingTimeInterval(-60)))
            }
        }
        notifier.resumePending()
        sweep?.start()
    }

    /// Ends the unfinished Assemblies whose files a process handed over to be read in place: that
    /// process is gone, and a stored record is never trusted to say which files to read.
    private static func abandonHandedOver(_ assemblies: any AssemblyRecords, results: String) throws {
        for record in assemblies.live where !record.isTerminal && record.readsFilesInPlace {
            var action = AssemblyAction.none
            assemblies.update(record.id) { record in
                action = record.apply(.abandoned(
                    code: .interrupted, message: "the process that handed this Assembly its files ended before it finished; a new run makes a new one"))
            }
            if action == .discardResults { try FileSystem.removeIfPresent(results + "/" + record.id) }
        }
    }

    /// The Assembly, upload and Template services for callers in this process: no request in
    /// between, files read where they are, results as `file://` URLs of their paths.
    public var services: Services {
        Services(
            assemblies: InProcessAssemblies(api: assemblyAPI, dataDirectory: dataDirectory), uploads: InProcessUploads(links: uploadLinks),
            templates: InProcessTemplates(api: templateAPI))
    }

    /// The data folder as a `file://` URL: what callers in this process name the engine by.
    public var address: String {
        let url = AssemblyStatus.fileURL(dataDirectory)
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// Removes what requests cut off by a crash or a restart left in `incoming/`, and makes sure it exists.
    private static func sweepIncoming(_ path: String) throws {
        try FileSystem.removeIfPresent(path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Stops serving.
    public func stop() {
        sweep?.stop()
        handoff?.stop()
        executor.stop(waitingAtMost: .seconds(5))
        // Announcements under way get a moment; those cut off are delivered at the next start.
        notifier.stop(waitingAtMost: .seconds(5))
        executor.store.signals.stop()
        executor.store.releaseWaiters()
        server?.stop()
        executor.store.flush()
        shared?.state.stop()
        lock.release()
    }

    /// Process-wide settings the robots' libraries read, made once before any robot runs (not
    /// from robot threads, where they would race): libarchive names files in UTF-8 only under a
    /// UTF-8 character type, and libvips' warnings stay off standard error (`VipsWarnings` gives
    /// them to the files they concern, in the Assembly's `warnings`).
    private static let processPrepared: Void = {
        setlocale(LC_CTYPE, "C.UTF-8")
        setenv("VIPS_WARNING", "0", 0)
    }()

    private static func prepareProcess() { _ = processPrepared }
}
