import Basics
import Spec
import Foundation

/// `pipeline run`'s command line, parsed once: nothing below the command sees the raw arguments.
struct RunArguments: CommandArguments {
    /// The manifest to run.
    var manifestPath: String
    /// `--results`.
    var results: String?
    /// `--endpoint`.
    var endpoint: String?
    /// `--policy`.
    var policy: String?
    /// `--plan`: a reviewed plan to run exactly.
    var reviewedPlan: String?
    /// `--download`.
    var download: String?
    /// How the run goes: concurrency, timeouts, chunks, shard and pace.
    var tuning: RunTuning
    /// `--no-wait`: leave the Assemblies running once their files are up.
    var noWait: Bool
    /// Only collect what an earlier `run --no-wait` left (`status --wait`): create nothing.
    var collectOnly = false
    /// `--rehash`.
    var rehash: Bool
    /// `--cancel-on-interrupt`.
    var cancelOnInterrupt: Bool
    /// `--watch`.
    var watch: Bool
    /// `--json`: events instead of progress and a summary.
    var json: Bool
    /// `-q` or `-v`.
    var detail: RunDetail
    /// For `--shard auto`: which variables the shard came from, to say so.
    var shardOrigin: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifestPath = arguments.positionals[0]
        (results, endpoint, policy) = (arguments.value("results"), arguments.value("endpoint"), arguments.value("policy"))
        (reviewedPlan, download) = (arguments.value("plan"), arguments.value("download"))
        // The command line may name any folder, but not Git's (its config holds the checkout's credentials) nor pipeline's state.
        if let download, download.split(separator: "/").contains(where: { $0 == ".git" || $0 == ".pipeline" }) {
            throw UsageError("--download must not be in .git/ or .pipeline/, not '\(download.printable)'", command: "run")
        }
        tuning = RunTuning(
            concurrency: try arguments.integer("concurrency", in: OptionLimits.parallel, default: 4),
            uploadParallel: try arguments.integer("parallel", in: OptionLimits.parallel, default: 4),
            timeout: try arguments.duration("timeout", default: .seconds(8 * 3600)),
            force: arguments.flag("force"),
            chunkSize: try arguments.size("chunk-size", minimum: UploadSettings.smallestChunk),
            shard: try arguments.shard(),
            perMinute: arguments.value("max-assemblies-per-minute") == nil ? nil : try arguments.integer("max-assemblies-per-minute", in: 1...100_000, default: 1))
        (rehash, cancelOnInterrupt, watch, json) = (arguments.flag("rehash"), arguments.flag("cancel-on-interrupt"), arguments.flag("watch"), arguments.flag("json"))
        noWait = arguments.flag("no-wait")
        if noWait, watch || cancelOnInterrupt {
            throw UsageError("--no-wait leaves the Assemblies running: it goes with neither --watch nor --cancel-on-interrupt", command: "run")
        }
        detail = arguments.flag("quiet") ? .quiet : arguments.flag("verbose") ? .verbose : .normal
        shardOrigin = arguments.shardOrigin
    }

    /// The arguments of a run that only collects what an earlier `run --no-wait` left running
    /// (`status --wait`, `notify receive`): it resumes them, creating nothing, and writes their results.
    static func collecting(_ manifest: String, endpoint: String?, timeout: String? = nil, json: Bool = false) throws(UsageError) -> RunArguments {
        let passed = [manifest] + (endpoint.map { ["--endpoint", $0] } ?? []) + (timeout.map { ["--timeout", $0] } ?? []) + (json ? ["--json"] : [])
        var arguments = try RunArguments(try ParsedArguments.parse(passed, for: RunCommand.spec))
        arguments.collectOnly = true
        return arguments
    }
}

/// How a run goes, as its command line sets it; `RunSetup` builds the run's configuration from it once.
struct RunTuning: Sendable {
    /// Assemblies in flight at once.
    var concurrency = 4
    /// Files uploaded at once per Assembly.
    var uploadParallel = 4
    /// The longest the run may take.
    var timeout: Duration = .seconds(8 * 3600)
    /// Redo every Assembly.
    var force = false
    /// The most bytes per upload request (the manifest's when nil).
    var chunkSize: Int64?
    /// The shard to run.
    var shard: (index: Int, count: Int)?
    /// At most this many creations a minute (the account's budget against the hosted service when nil).
    var perMinute: Int?

    /// Assembly creations a minute one account can rely on (the hosted service allows about 250).
    static let accountBudget = 240.0
    /// How long the hosted service keeps a result on its temporary storage (24 hours from the
    /// Assembly); counted from when the run began, so a little sooner than the service deletes it.
    static let temporaryResultsLifetime: Duration = .seconds(24 * 3600)
}
