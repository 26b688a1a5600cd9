import Basics
import Foundation

/// Merges the results files of a sharded run into one, reading each file an Assembly at a time:
/// memory does not grow with the size of the files.
public enum ResultsMerge {
    /// Why the files cannot be merged.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the file.
        public var description: String
        /// How to fix it.
        public var hint: String?
    }

    /// What a results file says about itself, read before its Assemblies are copied.
    private struct Header {
        var file: String
        var pipeline: String
        var shard: (index: Int, count: Int)
        var endpoint: String?
    }

    /// Writes the merge of `files` (every shard 1/N to N/N of one pipeline, in any order) through
    /// `emit`; whether every Assembly completed.
    public static func merge(_ files: [String], emit: (Data) -> Void) throws(Failure) -> Bool {
        var headers: [Header] = []
        for file in files { headers.append(try header(of: file)) }
        headers.sort { $0.shard.index < $1.shard.index }
        guard let first = headers.first,
              headers.allSatisfy({ $0.pipeline == first.pipeline && $0.shard.count == headers.count }),
              headers.map(\.shard.index) == Array(1...headers.count) else {
            throw Failure(
                description: "the files are not all the shards 1/N to N/N of one pipeline",
                hint: "pass every shard's results, from runs with --shard 1/N ... N/N")
        }
        let endpoints = Set(headers.map(\.endpoint))
        var writer = ResultsJSONWriter()
        var completed = true
        for header in headers {
            try stream(header.file) { entry in
                guard let parsed = RunResults.Entry(json: entry) else { return }
                completed = completed && parsed.isCompleted
                writer.add(parsed.json, emit)
            }
        }
        writer.finish(pipeline: first.pipeline, shard: nil, endpoint: endpoints.count == 1 ? first.endpoint : nil, emit)
        return completed
    }

    /// The file's pipeline, shard and endpoint (its Assemblies are skipped over, not kept).
    private static func header(of file: String) throws(Failure) -> Header {
        var members: [String: JSONValue] = [:]
        try read(file, element: { _ in }, member: { members[$0] = $1 })
        guard let pipeline = members["pipeline"]?.stringValue else { throw notResults(file, "it has no 'pipeline'") }
        guard let text = members["shard"]?.stringValue else {
            throw Failure(description: "'\(file)' holds the results of a whole run, not of a shard",
                          hint: "merge the results of runs with --shard 1/N ... N/N")
        }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), (1...count).contains(index) else {
            throw notResults(file, "its 'shard' is '\(text)', not I/N")
        }
        return Header(file: file, pipeline: pipeline, shard: (index, count), endpoint: members["endpoint"]?.stringValue)
    }

    private static func stream(_ file: String, _ element: (JSONValue) -> Void) throws(Failure) {
        try read(file, element: element, member: { _, _ in })
    }

    private static func read(_ file: String, element: (JSONValue) -> Void, member: (String, JSONValue) -> Void) throws(Failure) {
        guard let stream = JSONObjectStream(path: file) else { throw notResults(file, "it cannot be opened") }
        do {
            try stream.read(streaming: "assemblies", element: element, member: member)
        } catch {
            throw notResults(file, "\(error)")
        }
    }

    private static func notResults(_ file: String, _ reason: String) -> Failure {
        Failure(description: "'\(file)' is not a results file written by 'pipeline run': \(reason)",
                hint: "pass the files 'pipeline run --shard I/N' wrote (its 'results:' path, or --results)")
    }
}
