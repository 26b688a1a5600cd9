import Basics
import Client
import Foundation

/// What `pipeline results MANIFEST [SOURCE...]` prints: each source file of the last run with
/// its result files (step, URL, download path, size, dimensions), as `terraform output` lists
/// outputs; sources asked for that have no result are named.
struct ResultsQuery {
    /// One result of a source.
    struct Row {
        var step: String
        var file: RunResults.ResultFile
    }

    /// Sources (relative to the manifest's folder) in order, each with its results by step and name.
    let sources: [(path: String, results: [Row])]
    /// Sources asked for that the last run made nothing of.
    let missing: [String]

    /// The results of `wanted` (every source when empty) in `results`; a wanted source is a path
    /// relative to the manifest's folder, as results name them, byte for byte (`ExactName`).
    init(_ results: RunResults, wanted: [String]) {
        var bySource: [ExactName: [Row]] = [:]
        for entry in results.assemblies where entry.isCompleted {
            for file in entry.files where bySource[ExactName(file.path)] == nil { bySource[ExactName(file.path)] = [] }
            for (step, files) in entry.results {
                for file in files { if let source = file.source { bySource[ExactName(source), default: []].append(Row(step: step, file: file)) } }
            }
        }
        var seen: Set<ExactName> = []
        let order = wanted.isEmpty ? bySource.keys.sorted() : wanted.map(ExactName.init(_:)).filter { seen.insert($0).inserted }
        sources = order.compactMap { path in
            bySource[path].flatMap { rows in
                rows.isEmpty ? nil : (path.text, rows.sorted { (ExactName($0.step), ExactName($0.file.name)) < (ExactName($1.step), ExactName($1.file.name)) })
            }
        }
        missing = order.filter { (bySource[$0] ?? []).isEmpty }.map(\.text)
    }

    /// The text: each source, then a line per result (step, download path or URL, size and
    /// dimensions) and, for a downloaded one, its URL below.
    func text() -> String {
        var text = ""
        for (path, rows) in sources {
            text += TerminalText.printable(path) + "\n"
            for row in rows {
                let facts = [row.file.size.map { ByteSize(bytes: $0).description }, Self.dimensions(row.file.meta)].compactMap { $0 }.joined(separator: ", ")
                let place = row.file.localPath ?? row.file.url ?? "(no URL)"
                text += "  \(TerminalText.printable(row.step)): \(TerminalText.printable(place))" + (facts.isEmpty ? "" : " (\(facts))") + "\n"
                if row.file.localPath != nil, let url = row.file.url { text += "    " + TerminalText.printable(url) + "\n" }
            }
        }
        for path in missing { text += "\(TerminalText.printable(path)): no results in the last run\n" }
        return text
    }

    /// The JSON text, pretty and ending in a newline: `{"missing": [path], "sources": {path: [{step,
    /// name, url, local_path, size, mime, width, height, duration}]}}`, keys in byte order. Written
    /// member by member: a `JSONValue` object would merge two sources whose names differ only by
    /// Unicode normalization.
    var jsonText: String {
        var output = Array("{\n  \"missing\": ".utf8)
        JSONValue.array(missing.map { .string($0) }).write(to: &output, pretty: true, depth: 1)
        output += ",\n  \"sources\": {".utf8
        for (index, (path, rows)) in sources.sorted(by: { ByteOrder.precedes($0.path, $1.path) }).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.newline(&output, pretty: true, depth: 2)
            JSONValue.writeString(path, to: &output)
            output += ": ".utf8
            JSONValue.array(rows.map(Self.json)).write(to: &output, pretty: true, depth: 2)
        }
        if !sources.isEmpty { JSONValue.newline(&output, pretty: true, depth: 1) }
        output += "}\n}\n".utf8
        return String(decoding: output, as: UTF8.self)
    }

    /// One result in the JSON.
    private static func json(_ row: Row) -> JSONValue {
        var item: [String: JSONValue] = ["step": .string(row.step), "name": .string(row.file.name), "size": row.file.size.map { .int(Int($0)) } ?? .null]
        if let url = row.file.url { item["url"] = .string(url) }
        if let local = row.file.localPath { item["local_path"] = .string(local) }
        if let mime = row.file.mime { item["mime"] = .string(mime) }
        for key in ["width", "height", "duration"] { if let value = row.file.meta[key], value != .null { item[key] = value } }
        return .object(item)
    }

    /// `640x480`, or a duration in seconds, from a result's meta.
    private static func dimensions(_ meta: JSONValue) -> String? {
        if let width = meta["width"]?.intValue, let height = meta["height"]?.intValue { return "\(width)x\(height)" }
        if let duration = meta["duration"]?.doubleValue { return String(format: "%.1f s", duration) }
        return nil
    }
}
