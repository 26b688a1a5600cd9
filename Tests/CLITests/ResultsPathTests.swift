import Basics
import Foundation
import TestSupport
import XCTest

/// Where results are written: never over a file that holds no results (a source, the manifest),
/// never where downloads go, and results written elsewhere (`--results`) take nothing away from
/// what the manifest's own results need.
final class ResultsPathTests: XCTestCase {
    private func project(results: String, download: String? = nil) throws -> TemporaryDirectory {
        try TestProject.resizing(
            prefix: "results-path", endpoint: "local", images: ["a.png": (64, 32), "b.png": (48, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16}", results: results, download: download)
    }

    func testAResultsPathOverASourceTheManifestOrADownloadIsRefused() async throws {
        for (results, download, refusal) in [
            ("images/a.png", nil, "is not a results file"), ("pipeline.yml", nil, "is not a results file"),
            ("build/out/thumb/results.json", "build/out", "is inside a step folder of the download folder"),
        ] {
            let directory = try project(results: results, download: download)
            defer { directory.remove() }
            let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + results.replacingOccurrences(of: "build/out/thumb/results.json", with: "pipeline.yml")))
            let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
            XCTAssertEqual(run.status, 1, "\(results): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains(refusal), run.stderr)
            let after = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + results.replacingOccurrences(of: "build/out/thumb/results.json", with: "pipeline.yml")))
            XCTAssertEqual(before, after, "\(results) is untouched")
        }
    }

    func testResultsWrittenElsewhereKeepWhatTheManifestsOwnResultsName() async throws {
        let directory = try project(results: "results.json")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let first = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(first.status, 0, first.stderr)
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "width: 16", with: "width: 20").write(toFile: manifest, atomically: true, encoding: .utf8)
        let elsewhere = await CLIHarness.run(["run", manifest, "--results", directory.path + "/other.json"])
        XCTAssertEqual(elsewhere.status, 0, elsewhere.stderr)
        XCTAssertFalse(elsewhere.stdout.contains("removed the files"), elsewhere.stdout)
        let own = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let urls = (own["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["thumb"]?.arrayValue ?? [] }.compactMap { $0["url"]?.stringValue }
        XCTAssertEqual(urls.count, 2)
        for url in urls {
            let path = try XCTUnwrap(ResultURLs.path(url, resultsFolder: directory.path))
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the manifest's own results still have \(url)")
        }
    }
}
