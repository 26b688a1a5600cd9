import Basics
@testable import Client
import Crypto
import Foundation
import Planning
import TestSupport
import XCTest

/// The bytes of a results file, every member it can hold included, are held to a golden file:
/// however the file is produced, what a run leaves on disk does not change.
final class ResultsGoldenTests: XCTestCase {
    private static let golden = Fixtures.path("golden/results.json", target: "ClientTests/Executor")

    /// Results with every member a file can hold: steps and Smart CDN URLs, results with and without
    /// a size, source, URL or expiry, files left out, warnings and a later attempt, a failure, and
    /// names to escape.
    static var everything: RunResults {
        let photo = PlannedFile(path: "photos/a b\u{e9}.jpg", size: 1234, digest: SHA256.digest("a"))
        let odd = PlannedFile(path: "odd/\"q\"\n\u{1}.png", size: 7, digest: SHA256.digest("odd"))
        var completed = RunResults.Entry(
            job: "thumbs", planID: "p-thumbs-0", assemblyID: String(repeating: "a", count: 32),
            assemblyURL: "https://api.example.com/assemblies/" + String(repeating: "a", count: 32), status: "ASSEMBLY_COMPLETED",
            message: "not written: it completed", cached: true, files: [photo, odd],
            results: [
                "thumb": [
                    RunResults.ResultFile(
                        source: photo.path, name: "a b\u{e9}.jpg", url: "https://tmp.example.com/r/1/a.jpg", size: 512, md5: String(repeating: "0f", count: 16),
                        mime: "image/jpeg", meta: .object(["width": .int(200), "ratio": .double(1.5), "title": .string("\u{e9}t\u{e9} \"1\""), "gps": .null]),
                        localPath: "build/thumbs/a b\u{e9}.jpg", expires: Date(timeIntervalSince1970: 1_800_000_000)),
                    RunResults.ResultFile(source: nil, name: "unknown", url: nil, size: nil, mime: nil, meta: .object([:])),
                ],
                "none": [],
            ])
        completed.steps = [ExactName(photo.path): ["thumb": "d1", "hash": "d2"], ExactName(odd.path): [:]]
        completed.smartCDNURLs = [ExactName(photo.path): "https://w.tlcdn.com/img/a.jpg?sig=x"]
        completed.leftOut = [
            RunResults.LeftOut(source: odd.path, step: "thumb", error: "INVALID_FILE", message: "not an image"),
            RunResults.LeftOut(source: nil, step: "import", error: "IMPORT_FAILED", message: "404"),
        ]
        completed.warnings = [RunResults.Warning(source: photo.path, step: "thumb", message: "Corrupt JPEG data"), RunResults.Warning(source: nil, step: "", message: "w")]
        var attempt = RunResults.Attempt(completed, endpoint: "local")
        (attempt.status, attempt.message, attempt.assemblyID) = ("INTERRUPTED", "cut", String(repeating: "b", count: 32))
        completed.attempt = attempt
        var failed = RunResults.Entry(
            job: "videos", planID: "p-videos-1", assemblyID: nil, assemblyURL: nil, status: "UPLOAD_FAILED", message: "refused",
            cached: false, files: [], results: [:])
        var bare = RunResults.Attempt(failed, endpoint: nil)
        (bare.message, bare.assemblyID) = (nil, nil)
        failed.attempt = bare
        let silent = RunResults.Entry(
            job: "videos", planID: "p-videos-2", assemblyID: nil, assemblyURL: nil, status: "NOT_STARTED", message: nil, cached: false, files: [odd], results: [:])
        return RunResults(pipeline: "site", manifest: "pipeline.yml", shard: "1/2", endpoint: "https://api.example.com", assemblies: [completed, failed, silent])
    }

    func testAResultsFileIsTheGoldenBytes() throws {
        let directory = try TemporaryDirectory(prefix: "results-golden")
        defer { directory.remove() }
        try Self.everything.write(to: directory.path + "/results.json")
        try Golden.assertMatches(try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8), file: Self.golden)
        // An empty one, without the optional members, is the serializer's bytes as well.
        try RunResults(pipeline: "p", assemblies: []).write(to: directory.path + "/empty.json")
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/empty.json", encoding: .utf8), "{\n  \"assemblies\": [],\n  \"pipeline\": \"p\",\n  \"version\": 1\n}\n")
    }

    func testTheGoldenFileReadsBackAsWritten() throws {
        var expected = Self.everything
        // What a file does not keep: whether an entry was cached.
        expected.assemblies[0].cached = false
        let read = try XCTUnwrap(RunResults.load(Self.golden))
        XCTAssertEqual(read.assemblies.count, 3)
        XCTAssertEqual(read.assemblies[1], expected.assemblies[1])
        XCTAssertEqual(read.assemblies[2], expected.assemblies[2])
        XCTAssertEqual(read.assemblies[0].results, expected.assemblies[0].results)
        XCTAssertEqual(read.assemblies[0].steps[ExactName("photos/a b\u{e9}.jpg")], ["thumb": "d1", "hash": "d2"])
    }
}
