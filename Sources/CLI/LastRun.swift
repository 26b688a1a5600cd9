import Basics
import Client
import Foundation
import Spec

/// The workspace of a manifest, for commands that look at its last run (`status`, `cancel`, `diff`, `plan`).
enum LastRun {
    /// The manifest's workspace; diagnostics are reported when the manifest cannot be read.
    static func workspace(_ manifestPath: String, context: CommandContext) -> Workspace? {
        let loaded = ManifestLoader(environment: context.environment).load(path: manifestPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        return loaded.value.map { Workspace(manifest: $0) }
    }

    /// The manifest's workspace, without reporting problems (for display only).
    static func quietWorkspace(_ manifestPath: String, environment: [String: String]) -> Workspace? {
        ManifestLoader(environment: environment).load(path: manifestPath).value.map { Workspace(manifest: $0) }
    }
}
