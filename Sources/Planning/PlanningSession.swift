import Foundation
import Spec
import Basics

/// Loads a manifest and its policy and plans it: what `validate`, `plan` and `diff` share.
public struct PlanningSession: Sendable {
    /// The variables manifests and policies interpolate.
    public var environment: [String: String]
    /// A policy file given on the command line; it replaces the manifest's `policy:`.
    public var policyPath: String?
    /// Policies fetched from URLs beforehand (`policy: https://signer.example/policy`), by URL.
    public var fetchedPolicies: [String: Data]
    /// Why a policy URL could not be fetched, by URL, for the error that says so.
    public var policyFetchFailures: [String: String] = [:]
    /// The endpoint a run uses instead of the manifest's (`run --endpoint`): `local` or a URL.
    public var endpointOverride: String?
    /// Where a manifest's file digests are remembered between plans; nil hashes every file every time.
    public var digestCache: (@Sendable (Manifest) -> DigestCache)?

    /// Creates a session.
    public init(environment: [String: String], policyPath: String? = nil, fetchedPolicies: [String: Data] = [:]) {
        self.environment = environment
        self.policyPath = policyPath
        self.fetchedPolicies = fetchedPolicies
    }

    /// Parses the manifest and checks its shape and its instructions against the policy.
    public func validate(manifestPath: String) -> Loaded<Manifest> {
        validate(load(manifestPath: manifestPath))
    }

    /// Parses the manifest, expands its globs, hashes the files and checks the plan against the policy.
    public func plan(manifestPath: String, workers: Int = 2) -> Loaded<Plan> {
        plan(load(manifestPath: manifestPath), workers: workers)
    }

    /// The manifest at `manifestPath` and its policy.
    public func load(manifestPath: String) -> Loaded<Project> {
        project(ManifestLoader(environment: environment).load(path: manifestPath))
    }

    /// A loaded manifest with its policy: `policyPath`, else the manifest's `policy:` (a file
    /// beside it, or a URL already in `fetchedPolicies`).
    public func project(_ loaded: Loaded<Manifest>) -> Loaded<Project> {
        var (withPolicy, policy) = addPolicy(to: loaded)
        if let manifest = withPolicy.value {
            let endpoint = Endpoint.of(manifest, override: endpointOverride, environment: environment)
            if endpoint == .local {
                let problems = manifest.localEngineProblems(environment: environment)
                withPolicy.diagnostics += problems
                if problems.containsErrors { withPolicy.value = nil }
            } else if endpoint.isHostedService {
                withPolicy.diagnostics += manifest.temporaryResultsWarnings
            }
        } else if let partial = loaded.partial, let policy {
            // A manifest with errors is judged by its policy too, so every problem is said at once;
            // not where an error already is (an unknown robot is not also one the policy refuses).
            let errorLines = Set(withPolicy.diagnostics.filter { $0.severity == .error }.compactMap { $0.location.map { "\($0.file):\($0.line)" } })
            withPolicy.diagnostics += PolicyReview(policy: policy, manifest: partial, job: nil).findings(for: partial).filter { finding in
                finding.location.map { !errorLines.contains("\($0.file):\($0.line)") } ?? true
            }
        }
        // A step written once and used by several (an anchor and its aliases) is said once.
        let diagnostics = SharedValueFindings.coalesced(withPolicy.diagnostics).uniqued()
        return Loaded(value: withPolicy.value.map { Project(manifest: $0, policy: policy) }, diagnostics: diagnostics, sources: withPolicy.sources)
    }

    /// Checks a project's instructions against its policy.
    public func validate(_ project: Loaded<Project>) -> Loaded<Manifest> {
        var result = Loaded(value: project.value?.manifest, diagnostics: project.diagnostics, sources: project.sources)
        guard let manifest = project.value?.manifest, let policy = project.value?.policy else { return result }
        result.diagnostics += PolicyReview(policy: policy, manifest: manifest, job: nil).findings(for: manifest)
        result.diagnostics = result.diagnostics.uniqued()
        if result.diagnostics.containsErrors { result.value = nil }
        return result
    }

    /// Expands a project's globs, hashes its files and checks the plan against its policy; with
    /// `shard`, only that shard's share is planned (and its files hashed).
    public func plan(_ project: Loaded<Project>, workers: Int = 2, shard: (index: Int, count: Int)? = nil) -> Loaded<Plan> {
        guard let loaded = project.value else { return Loaded(value: nil, diagnostics: project.diagnostics, sources: project.sources) }
        let cache = digestCache?(loaded.manifest)
        var (plan, diagnostics) = Planner(policy: loaded.policy, workers: workers, cache: cache, shard: shard).plan(loaded.manifest)
        // A whole run over its budget (a shard is judged by the whole plan, which it does not see).
        if let whole = plan, shard == nil, let policy = loaded.policy, let most = policy.limits.runSize, whole.byteCount > most.bytes {
            diagnostics.append(.error(
                "policy.run-too-large", "the run's \(plural(whole.fileCount, "file")) add up to \(ByteSize(bytes: whole.byteCount)), "
                    + "more than the policy's limits.run_size of \(most) (\(policy.file))",
                hint: "check the inputs' globs: a pattern may reach the whole asset folder"))
            plan = nil
        }
        return Loaded(value: plan, diagnostics: (project.diagnostics + diagnostics).uniqued(), sources: project.sources)
    }

    private func addPolicy(to manifest: Loaded<Manifest>) -> (Loaded<Manifest>, Policy?) {
        var loaded = manifest
        guard let manifest = loaded.value ?? loaded.partial else { return (loaded, nil) }
        let path: String
        if let policyPath {
            path = policyPath
        } else if let reference = manifest.policy {
            if reference.value.contains("://") {
                guard let data = fetchedPolicies[reference.value] else {
                    loaded.diagnostics.append(.error(
                        "manifest.policy-url", "the policy at \(reference.value) could not be fetched"
                            + (policyFetchFailures[reference.value].map { ": " + TerminalText.printable($0) } ?? ""), at: reference.location,
                        hint: "check that the signer is reachable (GET /policy), or pass a local copy with '--policy FILE'"))
                    loaded.value = nil
                    return (loaded, nil)
                }
                let policy = PolicyLoader(environment: environment).decode(data, file: reference.value)
                return merge(policy, into: loaded)
            }
            path = Self.resolve(reference.value, besides: manifest.file)
            // A committed link must not make the policy (and its error messages) another file outside the project.
            if let real = RealPath.of(path), let root = RealPath.of(manifest.directory), !RealPath.isInside(real, root) {
                loaded.diagnostics.append(.error(
                    "manifest.outside-project", "'policy' leads to '\(real)', outside the manifest's folder; not read", at: reference.location,
                    hint: "keep the policy inside the project, or pass --policy FILE on the command line"))
                loaded.value = nil
                return (loaded, nil)
            }
        } else {
            return (loaded, nil)
        }
        return merge(PolicyLoader(environment: environment).load(path: path), into: loaded)
    }

    private func merge(_ policy: Loaded<Policy>, into manifest: Loaded<Manifest>) -> (Loaded<Manifest>, Policy?) {
        var loaded = manifest
        loaded.sources.merge(policy.sources)
        loaded.diagnostics += policy.diagnostics
        if policy.value == nil { loaded.value = nil }
        return (loaded, policy.value)
    }

    /// `relative` interpreted against the folder of `file`, keeping the result as short as the user wrote it.
    static func resolve(_ relative: String, besides file: String) -> String {
        if relative.hasPrefix("/") { return relative }
        let folder = FolderPath.of(file)
        return folder.isEmpty ? relative : folder + "/" + relative
    }
}

/// A manifest and the policy it is checked against, loaded once for everything a command does.
public struct Project: Sendable {
    /// The manifest.
    public var manifest: Manifest
    /// Its policy, if it names one (or one was given).
    public var policy: Policy?

    /// Creates a project.
    public init(manifest: Manifest, policy: Policy?) {
        self.manifest = manifest
        self.policy = policy
    }
}
