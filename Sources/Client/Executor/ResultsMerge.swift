import Basics
import Foundation
import Wire

/// Merges the results files of a sharded run into one, reading each file an Assembly at a time:
/// what stays in memory is one Assembly's entry and the ids of the Assemblies seen.
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
        var manifest: String?
        var shard: (index: Int, count: Int)
        var endpoint: String?
    }

    /// Writes the merge of `files` (every shard 1/N to N/N of one pipeline, in any order) through
    /// `emit`; whether every Assembly completed.
    public static func merge(_ files: [String], emit: (Data) -> Void) throws(Failure) -> Bool {
        var headers: [Header] = []
        for file in files { headers.append(try header(of: file)) }
        headers.sort { $0.shard.index < $1.shard.index }
        guard let first = headers.first else { throw Failure(description: "no results files to merge") }
        if let other = headers.first(where: { $0.pipeline != first.pipeline }) {
            throw Failure(description: "'\(other.file)' holds pipeline '\(other.pipeline)', '\(first.file)' pipeline '\(first.pipeline)'",
                          hint: "merge the shards of one run")
        }
        if let other = headers.first(where: { $0.shard.count != first.shard.count }) {
            throw Failure(description: "'\(other.file)' is a shard of \(other.shard.count), '\(first.file)' of \(first.shard.count)",
                          hint: "merge the shards of one run")
        }
        let present = headers.map(\.shard.index)
        // A count far beyond the files given is not spelled out shard by shard.
        guard first.shard.count <= max(headers.count, 10_000) else {
            throw Failure(description: "the files are not all the shards 1/N to N/N of one pipeline: \(headers.count) given of \(first.shard.count)",
                          hint: "pass every shard's results, from runs with --shard 1/N ... N/N")
        }
        if present != Array(1...first.shard.count) {
            let missing = Set(1...first.shard.count).subtracting(present).sorted().map { "\($0)/\(first.shard.count)" }
            let twice = Dictionary(grouping: present, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted().map { "\($0)/\(first.shard.count)" }
            throw Failure(
                description: "the files are not all the shards 1/N to N/N of one pipeline: "
                    + (missing.isEmpty ? "" : "missing \(missing.joined(separator: ", "))") + (missing.isEmpty || twice.isEmpty ? "" : "; ")
                    + (twice.isEmpty ? "" : "given twice \(twice.joined(separator: ", "))"),
                hint: "pass every shard's results, from runs with --shard 1/N ... N/N")
        }
        let endpoints = Set(headers.map(\.endpoint))
        var writer = ResultsJSONWriter()
        var completed = true
        var seen: Set<String> = []
        for header in headers {
            var index = 0
            var problem: Failure?
            try stream(header.file) { item in
                defer { index += 1 }
                guard problem == nil else { return }
                guard let entry = RunResults.Entry(json: item) else {
                    problem = notResults(header.file, "assemblies[\(index)] is not an Assembly's entry (it needs job, plan_id and status)")
                    return
                }
                guard seen.insert(entry.planID).inserted else {
                    problem = Failure(description: "'\(header.file)' lists Assembly \(entry.planID) again (assemblies[\(index)]), which another shard lists",
                                      hint: "merge the results of one sharded run, each shard once")
                    return
                }
                completed = completed && entry.isCompleted
                do { try writer.add(ResultsDocument.Assembly(entry), emit) } catch { problem = unwritable(header.file, index, error) }
            }
            if let problem { throw problem }
        }
        let manifests = Set(headers.map(\.manifest))
        do {
            try writer.finish(ResultsDocument.Header(
                pipeline: first.pipeline, manifest: manifests.count == 1 ? first.manifest : nil, shard: nil,
                endpoint: endpoints.count == 1 ? first.endpoint : nil), emit)
        } catch {
            throw Failure(description: "the merged results cannot be written: \(error)")
        }
        return completed
    }

    /// The file's pipeline, shard and endpoint; every entry is checked here, before anything is
    /// written, and none is kept.
    private static func header(of file: String) throws(Failure) -> Header {
        var members: [String: JSONValue] = [:]
        var index = 0
        var problem: String?
        try read(file, element: { item in
            if problem == nil, RunResults.Entry(json: item) == nil {
                problem = "assemblies[\(index)] is not an Assembly's entry (it needs job, plan_id and status)"
            }
            index += 1
        }, member: { members[$0] = $1 })
        if let problem { throw notResults(file, problem) }
        guard members["version"] == .int(1) else { throw notResults(file, "its 'version' is \(members["version"]?.serialized() ?? "missing"), not 1") }
        guard let pipeline = members["pipeline"]?.stringValue else { throw notResults(file, "it has no 'pipeline'") }
        guard let text = members["shard"]?.stringValue else {
            throw Failure(description: "'\(file)' holds the results of a whole run, not of a shard",
                          hint: "merge the results of runs with --shard 1/N ... N/N")
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, index >= 1, index <= count else {
            throw notResults(file, "its 'shard' is '\(text)', not I/N with 1 <= I <= N")
        }
        return Header(file: file, pipeline: pipeline, manifest: members["manifest"]?.stringValue, shard: (index, count), endpoint: members["endpoint"]?.stringValue)
    }

    private static func stream(_ file: String, _ element: (JSONValue) -> Void) throws(Failure) {
        try read(file, element: element, member: { _, _ in })
    }

    private static func read(_ file: String, element: (JSONValue) -> Void, member: (String, JSONValue) -> Void) throws(Failure) {
        guard let stream = JSONObjectStream(path: file) else {
            var info = stat()
            let reason = stat(file, &info) != 0 ? String(cString: strerror(errno))
                : info.st_mode & S_IFMT == S_IFDIR ? "it is a folder" : info.st_mode & S_IFMT == S_IFREG ? "it cannot be read" : "it is not a regular file"
            throw notResults(file, reason)
        }
        do {
            try stream.read(streaming: "assemblies", element: element, member: member)
        } catch {
            throw notResults(file, "\(error)")
        }
    }

    /// An entry read from `file` that cannot be written back (a value JSON cannot hold).
    private static func unwritable(_ file: String, _ index: Int, _ error: any Error) -> Failure {
        Failure(description: "'\(file)': assemblies[\(index)] cannot be written into the merged results: \(error)")
    }

    private static func notResults(_ file: String, _ reason: String) -> Failure {
        Failure(description: "'\(file)' is not a results file written by 'pipeline run': \(reason)",
                hint: "pass the files 'pipeline run --shard I/N' wrote (its 'results:' path, or --results)")
    }
}
