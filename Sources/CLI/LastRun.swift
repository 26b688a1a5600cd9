import Basics
import Client
import Foundation
import Planning
import Spec

/// The workspace of a manifest, for commands that look at its last run (`status`, `cancel`, `diff`, `plan`).
enum LastRun {
    /// The manifest's workspace; diagnostics are reported when the manifest cannot be read.
    static func workspace(_ manifestPath: String, context: CommandContext) -> Workspace? {
        workspaceAndAddress(manifestPath, context: context)?.workspace
    }

    /// The manifest's workspace and the URL of its endpoint (nil for the embedded engine, which is
    /// gone with its run): where the Assemblies its runs started may be asked about.
    static func workspaceAndAddress(_ manifestPath: String, endpoint override: String? = nil, context: CommandContext) -> (workspace: Workspace, address: String?)? {
        place(manifestPath, endpoint: override, context: context).map { ($0.workspace, $0.address) }
    }

    /// The manifest's workspace, its endpoint's URL (nil for the embedded engine) and the
    /// endpoint's key, as run state and results name it: whose Assemblies the run state lists.
    static func place(_ manifestPath: String, endpoint override: String? = nil, context: CommandContext) -> (workspace: Workspace, address: String?, endpoint: String)? {
        let loaded = ManifestLoader(environment: context.environment).load(path: manifestPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return nil }
        let endpoint = Endpoint.of(manifest, override: override, environment: context.environment)
        guard case .url(let address) = endpoint else { return (Workspace(manifest: manifest), nil, endpoint.key) }
        return (Workspace(manifest: manifest), address, endpoint.key)
    }

    /// The manifest's workspace, without reporting problems (for display only).
    static func quietWorkspace(_ manifestPath: String, environment: [String: String]) -> Workspace? {
        ManifestLoader(environment: environment).load(path: manifestPath).value.map { Workspace(manifest: $0) }
    }

    /// What a run of `plan` would do and take from the last results as they are: worked out by
    /// the run's own function, on the endpoint the run would use, so `plan` and `run` never
    /// disagree about what is cached.
    static func work(
        _ plan: Plan, manifest: Manifest, workspace: Workspace, endpointOverride: String?, environment: [String: String]
    ) -> RunWork {
        let endpoint = Endpoint.of(manifest, override: endpointOverride, environment: environment)
        return RunWork.of(
            plan, resultsPath: workspace.resultsPath, endpoint: endpoint.key,
            available: ResultAvailability(localResults: endpoint == .local ? workspace.engineDirectory : nil, downloadsBase: workspace.directory, now: Date()))
    }

    /// The plan the last whole run ran; a kept plan that does not read is said once on standard
    /// error (the changes are then shown by counts only), a missing one is no news.
    static func lastPlan(_ workspace: Workspace, context: CommandContext) -> Plan? {
        if let plan = workspace.lastPlan() { return plan }
        if FileManager.default.fileExists(atPath: workspace.lastPlanFile) {
            NoteView(output: context.output).warning(
                "the plan the last run kept (\(workspace.lastPlanFile.printable)) cannot be read; changes are shown by counts only until the next run")
        }
        return nil
    }
}
