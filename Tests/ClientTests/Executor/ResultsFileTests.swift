import Basics
@testable import Client
import Crypto
import Foundation
import Planning
import TestSupport
import Wire
import XCTest

/// Results files are written and merged an Assembly at a time, and read back as written.
final class ResultsFileTests: XCTestCase {
    private func results(shard: String?, jobs: [String], status: String = "ASSEMBLY_COMPLETED") -> RunResults {
        RunResults(pipeline: "site", shard: shard, endpoint: "local", assemblies: jobs.enumerated().map { index, job in
            RunResults.Entry(
                job: job, planID: "plan-\(job)-\(index)", assemblyID: String(repeating: "a", count: 31) + String(index), assemblyURL: "http://127.0.0.1/a\(index)", status: status,
                message: nil, cached: false,
                files: [PlannedFile(path: "in/\(job).png", size: 3, digest: SHA256.digest(job))],
                results: ["thumb": [RunResults.ResultFile(source: "in/\(job).png", name: "\(job).png", url: "http://127.0.0.1/r/\(job)", size: 2,
                                                          mime: "image/png", meta: .object(["width": .int(1)]))]])
        })
    }

    func testAStreamedFileIsTheSerializersBytesAndReadsBack() throws {
        let directory = try TemporaryDirectory(prefix: "results")
        defer { directory.remove() }
        for value in [results(shard: "1/2", jobs: ["a", "b\u{e9}\"q"]), results(shard: nil, jobs: [])] {
            try value.write(to: directory.path + "/out/results.json")
            let written = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json"))
            // Streamed an Assembly at a time, it is the bytes of the whole document serialized at once.
            var whole = try XCTUnwrap(JSONValueEncoder.encode(ResultsDocument.Header(
                pipeline: value.pipeline, manifest: value.manifest, shard: value.shard, endpoint: value.endpoint)).objectValue)
            whole["assemblies"] = .array(try value.assemblies.map { try JSONValueEncoder.encode(ResultsDocument.Assembly($0)) })
            XCTAssertEqual(String(decoding: written, as: UTF8.self), JSONValue.object(whole).serialized(pretty: true) + "\n")
            XCTAssertEqual(RunResults.load(directory.path + "/out/results.json"), value)
        }
    }

    func testShardsMergeInShardOrderAndAnythingElseIsNamed() throws {
        let directory = try TemporaryDirectory(prefix: "results")
        defer { directory.remove() }
        try results(shard: "2/2", jobs: ["c"], status: "ASSEMBLY_CANCELED").write(to: directory.path + "/two.json")
        try results(shard: "1/2", jobs: ["a", "b"]).write(to: directory.path + "/one.json")
        var merged = Data()
        let completed = try ResultsMerge.merge([directory.path + "/two.json", directory.path + "/one.json"]) { merged.append($0) }
        XCTAssertFalse(completed, "shard 2 was canceled")
        let parsed = try JSONValue.parse(merged)
        XCTAssertEqual(parsed["assemblies"]?.arrayValue?.compactMap { $0["job"]?.stringValue }, ["a", "b", "c"])
        XCTAssertNil(parsed["shard"])
        XCTAssertEqual(parsed["endpoint"], .string("local"))

        try results(shard: nil, jobs: ["a"]).write(to: directory.path + "/whole.json")
        try directory.write("broken.json", #"{"assemblies": [{"job": "a"}"#)
        try directory.write("junk.json", #"{"assemblies": [1], "pipeline": "site", "shard": "1/2", "version": 1}"#)
        try directory.write("future.json", #"{"assemblies": [], "pipeline": "site", "shard": "1/2", "version": 99}"#)
        try directory.write("zero.json", #"{"assemblies": [], "pipeline": "site", "shard": "1/0", "version": 1}"#)
        try directory.write("vast.json", #"{"assemblies": [], "pipeline": "site", "shard": "1/9223372036854775807", "version": 1}"#)
        try results(shard: "2/2", jobs: ["a"]).write(to: directory.path + "/again.json")
        let cases: [([String], String)] = [
            (["one.json"], "not all the shards 1/N to N/N of one pipeline: missing 2/2"),
            (["one.json", "one.json"], "missing 2/2; given twice 1/2"),
            (["junk.json", "two.json"], "'\(directory.path)/junk.json' is not a results file written by 'pipeline run': assemblies[0] is not an Assembly's entry"),
            (["future.json", "two.json"], "its 'version' is 99, not 1"),
            (["zero.json"], "its 'shard' is '1/0', not I/N"),
            (["vast.json"], "1 given of 9223372036854775807"),
            (["one.json", "again.json"], "lists Assembly plan-a-0 again"),
            (["two.json", directory.path], "it is a folder"),
            (["whole.json", "two.json"], "'\(directory.path)/whole.json' holds the results of a whole run"),
            (["broken.json", "two.json"], "'\(directory.path)/broken.json' is not a results file written by 'pipeline run': byte"),
            (["missing.json"], "'\(directory.path)/missing.json' is not a results file"),
        ]
        for (files, message) in cases {
            XCTAssertThrowsError(try ResultsMerge.merge(files.map { $0.hasPrefix("/") ? $0 : directory.path + "/" + $0 }) { _ in }, "\(files)") { error in
                XCTAssertTrue("\(error)".contains(message), "\(files): \(error)")
            }
        }
    }
}
