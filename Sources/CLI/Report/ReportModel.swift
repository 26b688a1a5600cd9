import Basics
import Client
import Engine
import Foundation
import Spec

/// What `pipeline report` shows, read from a results file: per job and Assembly, each source
/// file beside its results, with previews made from the files on this machine. A results file
/// is not trusted to name files: a source must lie inside the manifest's folder and a result in
/// the embedded engine's data folder or the job's download folder, or it is shown by name only.
struct ReportModel {
    /// A file with what the report can say of it.
    struct Item {
        var name: String
        var size: Int64?
        var mime: String
        /// Width and height, or duration, when known.
        var facts: String?
        /// A small JPEG, when one could be made.
        var preview: Data?
        /// An http(s) URL to link to.
        var link: String?
    }

    /// One source file and what its steps made of it.
    struct Source {
        var file: Item
        /// Step -> results.
        var results: [(step: String, items: [Item])]
        /// What happened to it besides: left out by a step, or warned of by a step's tool.
        var notes: [String] = []
    }

    /// One Assembly of the run.
    struct Assembly {
        var job: String
        var planID: String
        var assemblyID: String?
        var status: String
        var message: String?
        var sources: [Source]
    }

    let title: String
    let assemblies: [Assembly]

    /// The most preview bytes one report holds; files after that are shown by name.
    static let previewBudget = 12 << 20

    /// The model of `results`; previews come from `previews` (made afresh each time without one).
    init(results: RunResults, manifest: Manifest, workspace: Workspace, side: Int = 160, previews: PreviewCache? = nil) {
        title = manifest.name
        var budget = Self.previewBudget
        let trustedFolder = RealPath.of(workspace.directory) ?? workspace.directory
        let engineFolder = RealPath.of(workspace.engineDirectory)

        func preview(_ path: String?, mime: String) -> Data? {
            guard let path, budget > 0 else { return nil }
            guard let made = previews.map({ $0.jpeg(of: path, mime: mime, side: side) }) ?? PreviewImage.jpeg(of: path, mime: mime, side: side) else { return nil }
            budget -= made.count
            return budget >= 0 ? made : nil
        }
        // A file the report may read: a regular file whose real path lies inside `root`.
        func confined(_ path: String, in root: String?) -> String? {
            guard let root, let real = RealPath.of(path), RealPath.isInside(real, root) else { return nil }
            var info = stat()
            return stat(real, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? real : nil
        }

        assemblies = results.assemblies.map { entry in
            // Sources byte for byte: two names that differ only by Unicode normalization are two rows.
            let named = Set(entry.files.map { ExactName($0.path) })
            let isNamed = { (source: String?) in source.map { named.contains(ExactName($0)) } ?? false }
            let isOf = { (source: String?, path: String?) in source.map(ExactName.init(_:)) == path.map(ExactName.init(_:)) }
            // Results of all the files (an archive) belong to no one source: they get a row of their own.
            let ofAll = entry.files.count > 1 && entry.results.values.contains { $0.contains { !isNamed($0.source) } }
            // A row per source file (`nil`: the row of results made of all of them).
            let rows: [(path: String?, size: Int64)] = entry.files.map { ($0.path, $0.size) } + (ofAll ? [(nil, entry.files.reduce(0) { $0 + $1.size })] : [])
            let sources = rows.map { row -> Source in
                let local = row.path.flatMap { confined(manifest.path($0), in: trustedFolder) }
                let mime = row.path.map(MediaTypes.guess) ?? "application/x-assembly"
                let item = Item(name: row.path ?? "(all the files)", size: row.size, mime: mime, facts: nil, preview: preview(local, mime: mime), link: nil)
                var results: [(step: String, items: [Item])] = []
                // Steps as the manifest lists them (any other, such as a Template's, after them by name).
                let order = manifest.jobs.first { $0.name.value == entry.job }.map { $0.steps.map(\.name.value) } ?? []
                let rank = { (step: String) in order.firstIndex(of: step) ?? order.count }
                for (step, files) in entry.results.sorted(by: { (rank($0.key), $0.key) < (rank($1.key), $1.key) }) {
                    let mine = files.filter { result in
                        guard row.path != nil else { return !isNamed(result.source) }
                        return isOf(result.source, row.path) || (entry.files.count == 1 && result.source == nil)
                    }
                    guard !mine.isEmpty else { continue }
                    results.append((step, mine.map { result in
                        let url = result.url ?? ""
                        var path: String?
                        if url.hasPrefix("file://"), let local = URL(string: url)?.path { path = confined(local, in: engineFolder) }
                        if path == nil, let local = result.localPath { path = confined(manifest.path(local), in: trustedFolder) }
                        let mime = result.mime ?? MediaTypes.guess(result.name)
                        let lowered = url.lowercased()
                        return Item(name: result.name, size: result.size, mime: mime, facts: Self.facts(result.meta),
                                    preview: preview(path, mime: mime), link: lowered.hasPrefix("https://") || lowered.hasPrefix("http://") ? url : nil)
                    }))
                }
                let notes = entry.leftOut.filter { isOf($0.source, row.path) }.map { "left out by step '\($0.step)': \($0.error): \($0.message)" }
                    + entry.warnings.filter { isOf($0.source, row.path) }.map { ($0.step.isEmpty ? "warning: " : "warning in step '\($0.step)': ") + $0.message }
                return Source(file: item, results: results, notes: notes)
            }
            return Assembly(job: entry.job, planID: entry.planID, assemblyID: entry.assemblyID, status: entry.status, message: entry.message, sources: sources)
        }
    }

    /// "320 × 240", "12 s", from a result's meta.
    static func facts(_ meta: JSONValue) -> String? {
        var parts: [String] = []
        if let width = meta["width"]?.intValue, let height = meta["height"]?.intValue { parts.append("\(width) × \(height)") }
        if let duration = meta["duration"]?.doubleValue ?? meta["duration"]?.intValue.map(Double.init) { parts.append(String(format: "%.1f s", duration)) }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
