import Client
import Foundation
import Spec
import Basics
import Planning

/// Where a manifest's last run left its results and state.
struct LastRun {
    let manifest: Manifest
    let resultsPath: String
    let stateDirectory: String

    static func find(_ manifestPath: String, context: CommandContext) -> LastRun? {
        let loaded = ManifestLoader(environment: context.environment).load(path: manifestPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return nil }
        return LastRun(
            manifest: manifest, resultsPath: manifest.results.map { manifest.path($0.value) } ?? manifest.path("results.json"),
            stateDirectory: manifest.path(".pipeline"))
    }

    var results: RunResults? { RunResults.load(resultsPath) }

    /// The results file a manifest's runs write, without reporting problems (for display only).
    static func resultsPath(for manifestPath: String, environment: [String: String]) -> String {
        guard let manifest = ManifestLoader(environment: environment).load(path: manifestPath).value else { return "" }
        return manifest.results.map { manifest.path($0.value) } ?? manifest.path("results.json")
    }

    /// Assembly id and URL per plan id from the run state.
    var state: [String: (id: String, url: String?)] { Self.started(stateFile: stateDirectory + "/run-state.json") }

    /// Assembly id and URL per plan id in a run-state file.
    static func started(stateFile: String) -> [String: (id: String, url: String?)] {
        guard let data = FileManager.default.contents(atPath: stateFile),
              let json = try? JSONValue.parse(data), let object = json.objectValue else { return [:] }
        return object.compactMapValues { entry in
            entry["assembly_id"]?.stringValue.map { ($0, entry["assembly_url"]?.stringValue) }
        }
    }
}
