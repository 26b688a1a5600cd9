import Wire
import Basics

/// A typed, validated manifest: named jobs that turn file globs into Assemblies.
public struct Manifest: Sendable {
    /// The manifest's path as the user gave it (used in diagnostics).
    public var file: String
    /// The absolute folder the manifest lives in; globs and paths are relative to it.
    public var directory: String
    /// The format version (always 1 for now).
    public var version: Int
    /// The pipeline's name (defaults to the file name without extension).
    public var name: String
    /// Where Assemblies are created; `nil` means `$TRANSLOADIT_ENDPOINT`, else the public API.
    public var endpoint: Located<Endpoint>?
    /// Credentials and signing settings.
    public var auth: AuthSettings
    /// A policy file or URL to check plans against.
    public var policy: Located<String>?
    /// Where `pipeline run` writes its results file.
    public var results: Located<String>?
    /// The folder every input's real path must stay inside, links resolved (`inputs_root`,
    /// relative to the manifest); `nil` means the manifest's own folder.
    public var inputsRoot: Located<String>?
    /// How files are uploaded.
    public var upload: UploadSettings
    /// The Templates this manifest owns, by name.
    public var templates: [TemplateSpec]
    /// The jobs, in the order written.
    public var jobs: [Job]

    /// With the local engine as the endpoint, every step it cannot run, as an error at the step:
    /// said before anything runs, not as a failed Assembly later; and every export step it
    /// emulates (no credentials in `environment`, no key, no host), as a warning that the engine
    /// only copies the files into its own folder.
    public func localEngineProblems(environment: [String: String]) -> [Diagnostic] {
        robotProblemsForTheLocalEngine(environment: environment) + parameterProblemsForTheLocalEngine + valueProblemsForTheLocalEngine
            + optionProblemsForTheLocalEngine
    }

    /// On the hosted service, a job whose results are neither stored by an export robot nor
    /// downloaded keeps them only as temporary URLs, which the service deletes after 24 hours: a
    /// warning at the job. Jobs that run a Template by id are not judged (their steps are remote).
    public var temporaryResultsWarnings: [Diagnostic] {
        jobs.compactMap { job in
            guard job.download == nil, !job.steps.isEmpty, !job.steps.contains(where: { RobotCatalog.exports.contains($0.robot) }) else { return nil }
            return .warning(
                "plan.temporary-results", "job '\(job.name.value)' neither stores its results (a /…/store step) nor downloads them; the hosted service deletes them 24 hours after the run",
                at: job.name.location, hint: "add 'download: DIR' to the job, or a step that stores the results (such as /s3/store)")
        }
    }

    /// Every enumerated value of a local step that the local engine does not run (a format,
    /// preset, strategy or algorithm), as an error at the value with a did-you-mean hint.
    private var valueProblemsForTheLocalEngine: [Diagnostic] {
        let located = jobs.flatMap { job in job.steps.map { ($0, Optional(job.locations)) } } + templates.flatMap { $0.steps.map { ($0, LocationIndex?.none) } }
        return located.flatMap { step, locations -> [Diagnostic] in
            (step.instructions.objectValue ?? [:]).sorted { $0.key < $1.key }.compactMap { key, value in
                // A value the service would refuse too is said once, by the catalog's check.
                guard RobotCatalog.bundled.robots[step.robot]?.parameters[key]?.problem(with: value) == nil else { return nil }
                return RobotCatalog.localValueProblem(robot: step.robot, option: key, value: value).map { problem in
                    .error("manifest.not-local-value", problem.message, at: locations?.valueLocation(["steps", step.name.value, key]) ?? step.name.location, hint: problem.hint)
                }
            }
        }
    }

    /// Every parameter of a local step that the local engine does not implement, as an error at
    /// its key naming what it does implement: a step that validates runs as it says.
    private var parameterProblemsForTheLocalEngine: [Diagnostic] {
        let located = jobs.flatMap { job in job.steps.map { ($0, Optional(job.locations)) } } + templates.flatMap { $0.steps.map { ($0, LocationIndex?.none) } }
        return located.flatMap { step, locations -> [Diagnostic] in
            // A key the robot does not have at all is said once, by the catalog's check.
            let keys = (step.instructions.objectValue ?? [:]).keys.sorted().filter { RobotCatalog.bundled.robots[step.robot]?.parameters[$0] != nil }
            return RobotCatalog.unimplementedLocally(robot: step.robot, keys: keys).map { key in
                let implemented = (RobotCatalog.localParameters[step.robot] ?? []).sorted()
                return .error(
                    "manifest.not-local-parameter", "the local engine's \(step.robot) does not implement '\(key)'",
                    at: locations?.keyLocation(["steps", step.name.value, key]) ?? step.name.location,
                    hint: implemented.isEmpty ? "it takes no parameters; remove '\(key)', or use another endpoint for this job"
                        : "it implements \(implemented.joined(separator: ", ")); remove '\(key)', or use another endpoint for this job")
            }
        }
    }

    private func robotProblemsForTheLocalEngine(environment: [String: String]) -> [Diagnostic] {
        (jobs.flatMap(\.steps) + templates.flatMap(\.steps)).compactMap { step in
            if RobotCatalog.exports.contains(step.robot) {
                let options = step.instructions.objectValue ?? [:]
                if StorageSteps.storesForReal(robot: step.robot, options: options, available: { StorageSteps.environmentHasCredentials($0, environment) }) { return nil }
                var hint = "run with another endpoint to store the files where the step says"
                if StorageSteps.realStores.contains(step.robot) {
                    let name = options["credentials"]?.stringValue.map(StorageSteps.variableName) ?? "NAME"
                    hint = "to store them in the bucket, set \(StorageSteps.variablePrefix)\(name)_KEY and _SECRET (and _BUCKET, _REGION, _HOST) for the step's credentials; or " + hint
                }
                return .warning(
                    "manifest.local-export", "step '\(step.name.value)' uses \(step.robot); the local engine copies its files into its data folder's exports/ instead",
                    at: step.name.location, hint: hint)
            }
            guard !RobotCatalog.local.contains(step.robot), RobotCatalog.bundled.robots[step.robot] != nil else { return nil }
            return .error(
                "manifest.not-local", "step '\(step.name.value)' uses \(step.robot), which the local engine does not run", at: step.name.location,
                hint: "the local engine runs " + RobotCatalog.localProcessing.sorted().joined(separator: ", ")
                    + " and copies the files of export robots (/s3/store, ...) into its folder; use another endpoint for this job")
        }
    }

    /// The absolute folder inputs must stay inside (`inputs_root`, else the manifest's folder).
    public var inputsFolder: String { inputsRoot.map { path($0.value) } ?? directory }

    /// An absolute path for `relative`, a path written in the manifest (relative to its folder).
    public func path(_ relative: String) -> String {
        relative.hasPrefix("/") ? relative : directory + "/" + relative
    }
}

/// The manifest's `upload` section.
public struct UploadSettings: Sendable {
    /// The most bytes per PATCH (for proxies that limit request bodies); `nil` lets the uploader choose.
    public var chunkSize: Located<ByteSize>?

    /// The smallest chunk size accepted.
    public static let smallestChunk = TusProtocol.smallestChunk

    /// Settings with nothing chosen.
    public init(chunkSize: Located<ByteSize>? = nil) {
        self.chunkSize = chunkSize
    }
}

/// Where Assemblies are created.
public enum Endpoint: Sendable, Hashable {
    /// The built-in local engine.
    case local
    /// An HTTP(S) Assembly API such as `https://api2.transloadit.com`.
    case url(String)
}

/// The manifest's `auth` section. The Auth Secret never appears here.
public struct AuthSettings: Sendable {
    /// The Auth Key, usually `${TRANSLOADIT_KEY}`; `nil` when unset and not required yet.
    public var key: Located<String>?
    /// How long a signature stays valid (default 1 h).
    public var expiresIn: Located<Duration>?
    /// Who signs the params.
    public var signer: Located<SignerSettings>?
    /// Credentials that name unset variables, as the errors they are once credentials are needed
    /// (`run` against a remote endpoint); planning does without them.
    public var unresolved: [Diagnostic] = []

    /// The lifetime used when the manifest says nothing.
    public static let defaultExpiresIn: Duration = .seconds(3600)
}

/// How params get their signature.
public enum SignerSettings: Sendable, Hashable {
    /// HMAC with the secret in the named environment variable.
    case secret(variable: String)
    /// A program that reads params on stdin and prints the signature.
    case command(arguments: [String], timeout: Duration?)
    /// An HTTPS signing backend with a bearer token.
    case url(String, token: SignerToken?)
}

/// The bearer token a signing backend is sent.
public enum SignerToken: Sendable, Hashable {
    /// A token as given (usually `${SIGNER_TOKEN}`).
    case value(String)
    /// An OpenID Connect identity token the runner obtains for each request, so no stored
    /// credential is needed.
    case identity(IdentityTokenSource)
}

/// Where the runner gets an identity token.
public enum IdentityTokenSource: Sendable, Hashable {
    /// GitHub Actions' token endpoint (`$ACTIONS_ID_TOKEN_REQUEST_URL` with
    /// `$ACTIONS_ID_TOKEN_REQUEST_TOKEN`), asked for a token for `audience`.
    case github(audience: String)
    /// A JWT in an environment variable: GitLab's `id_tokens`, or any CI's.
    case variable(String)
}

/// One named job: which files, how they are batched and what happens to them.
public struct Job: Sendable {
    /// How many files go into one Assembly.
    public enum Batch: Sendable, Hashable {
        case count(Int)
        case all
    }

    /// The job's name, as written under `assemblies:`.
    public var name: Located<String>
    /// Glob patterns relative to the manifest; a leading `!` excludes.
    public var inputs: [Located<String>]
    /// Files per Assembly.
    public var batch: Batch
    /// The processing steps, in the order written.
    public var steps: [Step]
    /// A template to run instead of (or under) the steps.
    public var templateID: Located<String>?
    /// A Template of this manifest that the job runs (`template: NAME`), with its content.
    public var template: TemplateSpec?
    /// Assembly fields (variables).
    public var fields: [String: JSONValue]
    /// A URL notified when Assemblies finish.
    public var notifyURL: Located<String>?
    /// Whether inputs that match nothing are fine.
    public var allowEmpty: Bool
    /// Whether inputs may lie outside the manifest's folder.
    public var allowOutside: Bool
    /// A folder to download result files into.
    public var download: Located<String>?
    /// Signed Smart CDN URLs to write beside each source in the results.
    public var smartCDN: SmartCDNSpec?
    /// Where every part of `instructions` (and of `smart_cdn`, under `["smart_cdn"]`) was written.
    public var locations: LocationIndex

    /// The Assembly Instructions shared by all of this job's Assemblies: `steps`, `template_id`,
    /// `fields` and `notify_url`, exactly as they will be sent.
    public var instructions: JSONValue {
        var object: [String: JSONValue] = [:]
        if !steps.isEmpty {
            object["steps"] = .object(Dictionary(uniqueKeysWithValues: steps.map { ($0.name.value, $0.instructions) }))
        }
        if let templateID { object["template_id"] = .string(templateID.value) }
        // A manifest Template by name and content: its id is known only on the service, and a
        // changed Template changes the plan ids of the jobs that use it.
        if let template {
            object["template"] = .object(["name": .string(template.name.value), "content": template.content,
                                          "require_signature_auth": .bool(template.requireSignatureAuth)])
        }
        if !fields.isEmpty { object["fields"] = .object(fields) }
        if let notifyURL { object["notify_url"] = .string(notifyURL.value) }
        return .object(object)
    }
}

/// A processing step in the shape of Transloadit Assembly Instructions.
public struct Step: Sendable {
    /// The step's name.
    public var name: Located<String>
    /// The robot, such as `/image/resize`.
    public var robot: String
    /// The whole step object (`robot`, `use` and every option) as it will be sent.
    public var instructions: JSONValue
}
