import Basics
import Foundation
import Planning

/// Where a job's results land below its download folder: `<step>/<folders>/<stem>.<ext>`, where
/// the folders are the source's path below its pattern's fixed prefix (the part before the first
/// wildcard) and the stem is the source's name with the result's own extension. Two results never
/// share a path: a source with several results in one step numbers them (`stem-1.jpg`), sources
/// that would meet keep their own extension (`a.jpg.webp`), and results of no one source (an
/// archive of all files, even of one) keep their own name at the step's top.
public struct DownloadLayout: Sendable {
    private let patterns: [GlobPattern]
    /// Steps whose results are of all the files together (an archive): never a source's.
    private let bundling: Set<String>

    /// A layout for the job's input patterns (those starting with `!` are left out); the results
    /// of `bundling` steps keep their own names (`archive_name`), however many files they hold.
    public init(patterns: [String], bundling: Set<String> = []) {
        self.patterns = patterns.filter { !$0.hasPrefix("!") }.compactMap { try? GlobPattern($0) }  // planning refused invalid patterns already
        self.bundling = bundling
    }

    /// One result's place before clashes are settled.
    private struct Candidate {
        var planID: String
        var step: String
        var index: Int
        var folder: String
        var name: String
        /// The name kept when `name` meets another: the source's whole name with the result's extension.
        var fallback: String
        /// Byte for byte: two names that differ only by Unicode normalization are two files.
        var path: ExactName { ExactName(folder + "/" + name) }
    }

    /// For each entry (by plan id), each step's results' paths below the download folder they
    /// share, in order; nil for a result that has no URL to fetch. Entries are laid out together,
    /// so that results of different Assemblies (or jobs) never meet either.
    public static func paths(of entries: [(entry: RunResults.Entry, layout: DownloadLayout)]) -> [String: [String: [String?]]] {
        let candidates = entries.flatMap { $0.layout.candidates(of: $0.entry) }
        // Names that would meet fall back to keeping the source's extension, then to a counter.
        let meeting = Dictionary(grouping: candidates, by: \.path).filter { $0.value.count > 1 }
        var taken: Set<ExactName> = []
        var paths: [String: [String: [String?]]] = [:]
        for (entry, _) in entries { paths[entry.planID] = entry.results.mapValues { Array(repeating: nil, count: $0.count) } }
        for candidate in candidates {
            let base = meeting[candidate.path] == nil ? candidate.name : candidate.fallback
            var name = base
            var counter = 2
            while !taken.insert(ExactName(candidate.folder + "/" + name)).inserted {
                let ext = (base as NSString).pathExtension
                name = (base as NSString).deletingPathExtension + "-\(counter)" + (ext.isEmpty ? "" : "." + ext)
                counter += 1
            }
            paths[candidate.planID]?[candidate.step]?[candidate.index] = candidate.folder + "/" + name
        }
        return paths
    }

    /// Where the entry's results would go, before clashes are settled.
    private func candidates(of entry: RunResults.Entry) -> [Candidate] {
        let sources = Set(entry.files.map { ExactName($0.path) })
        var candidates: [Candidate] = []
        for (step, files) in entry.results.sorted(by: { ByteOrder.precedes($0.key, $1.key) }) {
            let stepFolder = FileNames.safeComponent(step)
            // The source each result belongs to; a lone source owns results that name none.
            let owners = files.map { file -> ExactName? in
                if bundling.contains(step) { return nil }
                if let source = file.source.map(ExactName.init(_:)), sources.contains(source) { return source }
                return file.source == nil && entry.files.count == 1 ? ExactName(entry.files[0].path) : nil
            }
            let perSource = Dictionary(grouping: owners.compactMap { $0 }, by: { $0 }).mapValues(\.count)
            var numbered: [ExactName: Int] = [:]
            for (index, file) in files.enumerated() where file.url != nil {
                let ownName = FileNames.safeComponent(file.name)
                guard let owner = owners[index] else {
                    candidates.append(Candidate(planID: entry.planID, step: step, index: index, folder: stepFolder, name: ownName, fallback: ownName))
                    continue
                }
                let (folders, sourceName) = place(owner.text)
                let ext = (ownName as NSString).pathExtension
                let suffix = ext.isEmpty ? "" : "." + ext
                var stem = (sourceName as NSString).deletingPathExtension
                var whole = sourceName
                if perSource[owner, default: 0] > 1 {
                    let number = numbered[owner, default: 0] + 1
                    numbered[owner] = number
                    stem += "-\(number)"
                    whole += "-\(number)"
                }
                candidates.append(Candidate(
                    planID: entry.planID, step: step, index: index, folder: ([stepFolder] + folders).joined(separator: "/"),
                    name: FileNames.safeComponent(stem + suffix), fallback: FileNames.safeComponent(whole + suffix)))
            }
        }
        return candidates
    }

    /// The source's folders below its pattern's fixed prefix, each made safe, and its file name.
    private func place(_ source: String) -> (folders: [String], name: String) {
        let segments = source.split(separator: "/")
        let fixed = patterns.lazy.compactMap { $0.fixedFolders(of: segments) }.first ?? max(segments.count - 1, 0)
        let folders = segments.dropFirst(fixed).dropLast().map { FileNames.safeComponent(String($0)) }
        return (folders, String(segments.last ?? "file"))
    }
}
