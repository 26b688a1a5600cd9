import Basics
import Foundation

/// `pipeline results`'s command line, parsed once.
struct ResultsArguments: CommandArguments {
    /// What was asked: the merge of results files, or the results of a manifest.
    enum Action: Sendable {
        /// `merge FILE...`: the shards' results files into one (`--out`, else standard output).
        case merge(files: [String], out: String?)
        /// The results of a manifest, of only `sources` when some are named.
        case show(manifest: String, sources: [String], json: Bool)
    }

    /// The action.
    var action: Action

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let first = arguments.positionals.first ?? ""
        let rest = Array(arguments.positionals.dropFirst())
        if first == "merge" {
            guard !rest.isEmpty else { throw UsageError("missing FILE... (the shards' results files)", command: ResultsCommand.spec.name) }
            action = .merge(files: rest, out: arguments.value("out"))
        } else {
            if arguments.value("out") != nil { throw UsageError("--out goes with 'merge'; the results of a manifest are printed", command: ResultsCommand.spec.name) }
            // `pipeline results a.png` names a source: the manifest is then the one found from here.
            var isFolder: ObjCBool = false
            let isManifest = first.hasSuffix(".yml") || first.hasSuffix(".yaml") || (FileManager.default.fileExists(atPath: first, isDirectory: &isFolder) && isFolder.boolValue)
            if !isManifest, let found = ManifestDiscovery.find(ParsedArguments.defaultManifest) {
                action = .show(manifest: found, sources: arguments.positionals, json: arguments.flag("json"))
            } else {
                action = .show(manifest: first, sources: rest, json: arguments.flag("json"))
            }
        }
    }
}
