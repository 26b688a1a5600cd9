import Basics
import Foundation

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
            writeJSON(emit) { entry in trusted.map { project in entry.mappingURLs { PortableURL.kept($0, in: folder, project: project) } } ?? entry }
        }
    }

    /// The results' JSON text and a newline, byte for byte `json.serialized(pretty: true)`, in pieces;
    /// each entry as `written` gives it.
    public func writeJSON(_ emit: (Data) -> Void, _ written: (Entry) -> Entry = { $0 }) {
        var writer = ResultsJSONWriter()
        for entry in assemblies { writer.add(written(entry).json, emit) }
        writer.finish(pipeline: pipeline, manifest: manifest, shard: shard, endpoint: endpoint, emit)
    }
}

/// Writes a results file's JSON from its entries' JSON one at a time: the top-level keys in the
/// serializer's order (`assemblies`, `endpoint`, `manifest`, `pipeline`, `shard`, `version`), so streamed
/// and whole files are the same bytes.
struct ResultsJSONWriter {
    private var output: [UInt8] = Array("{\n  \"assemblies\": [".utf8)
    private var count = 0

    /// Appends one entry; full pieces go to `emit`.
    mutating func add(_ entry: JSONValue, _ emit: (Data) -> Void) {
        if count > 0 { output.append(UInt8(ascii: ",")) }
        JSONValue.newline(&output, pretty: true, depth: 2)
        entry.write(to: &output, pretty: true, depth: 2)
        count += 1
        if output.count >= 1 << 20 {
            emit(Data(output))
            output.removeAll(keepingCapacity: true)
        }
    }

    /// Closes the array and writes the other members.
    mutating func finish(pipeline: String, manifest: String?, shard: String?, endpoint: String?, _ emit: (Data) -> Void) {
        if count > 0 { JSONValue.newline(&output, pretty: true, depth: 1) }
        output.append(UInt8(ascii: "]"))
        let members: [(key: String, value: String?)] = [("endpoint", endpoint), ("manifest", manifest), ("pipeline", pipeline), ("shard", shard)]
        for (key, value) in members {
            guard let value else { continue }
            output += ",\n  \"\(key)\": ".utf8
            JSONValue.writeString(value, to: &output)
        }
        output += ",\n  \"version\": 1\n}\n".utf8
        emit(Data(output))
    }
}
