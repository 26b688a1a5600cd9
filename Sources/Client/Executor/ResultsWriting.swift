import Basics
import Foundation
import Wire

extension RunResults {
    /// Writes the results atomically, an Assembly at a time (never the whole file's JSON tree).
    /// Below `trusted` (the manifest's folder), no folder on the way may be a link: a committed
    /// `out -> /elsewhere` must not receive the results file (the file itself is renamed into
    /// place, so a link in its place is replaced, never followed).
    /// The `file://` URLs of files inside `trusted` (the embedded engine's) are written relative to
    /// the file's folder, so the results still hold when the project is copied or restored elsewhere.
    public func write(to path: String, below trusted: String? = nil) throws {
        // Without a trusted folder, the file's own folder is (created when missing, as it is named).
        let folder = FolderPath.of(RealPath.normalized(path))
        try AtomicFile.write(to: path, below: trusted ?? folder) { emit in
            try writeJSON(emit) { entry in trusted.map { project in entry.mappingURLs { PortableURL.kept($0, in: folder, project: project) } } ?? entry }
        }
    }

    /// The results' JSON text and a newline, as `ResultsDocument` encodes them and the serializer
    /// writes them (pretty, keys sorted), in pieces; each entry as `written` gives it.
    public func writeJSON(_ emit: (Data) -> Void, _ written: (Entry) -> Entry = { $0 }) throws {
        var writer = ResultsJSONWriter()
        for entry in assemblies { try writer.add(ResultsDocument.Assembly(written(entry)), emit) }
        try writer.finish(ResultsDocument.Header(pipeline: pipeline, manifest: manifest, shard: shard, endpoint: endpoint), emit)
    }
}

extension ResultsDocument.Assembly {
    /// `entry` as a results file holds it: a completed entry without its message, a file's steps
    /// only when it has some, times as the API writes them.
    init(_ entry: RunResults.Entry) {
        let files = entry.files.map { file in
            ResultsDocument.File(
                path: file.path, size: Int(file.size), sha256: file.sha256,
                steps: entry.steps[ExactName(file.path)].flatMap { $0.isEmpty ? nil : $0 }, smartCDNURL: entry.smartCDNURLs[ExactName(file.path)])
        }
        let results = entry.results.mapValues { list in
            list.map { file in
                ResultsDocument.Result(
                    source: file.source, name: file.name, url: file.url, size: file.size.map { Int($0) }, md5hash: file.md5, mime: file.mime,
                    meta: file.meta, localPath: file.localPath, expires: file.expires.map(AuthParams.expires))
            }
        }
        self.init(
            job: entry.job, planID: entry.planID, status: entry.status, assemblyID: entry.assemblyID, assemblyURL: entry.assemblyURL,
            message: entry.isCompleted ? nil : entry.message, files: files, results: results,
            leftOut: entry.leftOut.map { ResultsDocument.LeftOut(source: $0.source, step: $0.step, error: $0.error, message: $0.message) },
            warnings: entry.warnings.map { ResultsDocument.Warning(source: $0.source, step: $0.step, message: $0.message) },
            attempt: entry.attempt.map { ResultsDocument.Attempt(status: $0.status, message: $0.message, assemblyID: $0.assemblyID, endpoint: $0.endpoint) })
    }
}

/// Writes a results file's JSON from its entries one at a time: `assemblies` first and then the
/// header's members, which is the serializer's sorted order (`assemblies`, `endpoint`,
/// `manifest`, `pipeline`, `shard`, `version`), so streamed and whole files are the same bytes.
struct ResultsJSONWriter {
    private var output: [UInt8] = Array("{\n  \"assemblies\": [".utf8)
    private var count = 0

    /// Appends one entry; full pieces go to `emit`.
    mutating func add(_ entry: ResultsDocument.Assembly, _ emit: (Data) -> Void) throws {
        let json = try JSONValueEncoder.encode(entry)
        if count > 0 { output.append(UInt8(ascii: ",")) }
        JSONValue.newline(&output, pretty: true, depth: 2)
        json.write(to: &output, pretty: true, depth: 2)
        count += 1
        if output.count >= 1 << 20 {
            emit(Data(output))
            output.removeAll(keepingCapacity: true)
        }
    }

    /// Closes the array and writes the header's members.
    mutating func finish(_ header: ResultsDocument.Header, _ emit: (Data) -> Void) throws {
        let members = try JSONValueEncoder.encode(header).objectValue ?? [:]
        if count > 0 { JSONValue.newline(&output, pretty: true, depth: 1) }
        output.append(UInt8(ascii: "]"))
        for (key, value) in members.sorted(by: { ByteOrder.precedes($0.key, $1.key) }) {
            output += ",".utf8
            JSONValue.newline(&output, pretty: true, depth: 1)
            JSONValue.writeString(key, to: &output)
            output += ": ".utf8
            value.write(to: &output, pretty: true, depth: 1)
        }
        JSONValue.newline(&output, pretty: true, depth: 0)
        output += "}\n".utf8
        emit(Data(output))
    }
}
