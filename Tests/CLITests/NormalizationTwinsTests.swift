import Basics
import Foundation
import TestSupport
import XCTest

/// A source is its exact name on disk: `Crème.png` composed (NFC) and decomposed (NFD), two files
/// of one folder on Linux, are two sources, each with its own results, downloads and report row,
/// and a byte copy of one shares its work but gets results of its own. After each change, the
/// project is what a clean run of the same files in a fresh folder makes.
final class NormalizationTwinsTests: XCTestCase {
    private static let composed = "images/Cr\u{E8}me.png"
    private static let decomposed = "images/Cre\u{300}me.png"
    private static let copy = "images/copy.png"
    /// Each source's image (width, height): the twins differ, the copy is the decomposed one's bytes.
    /// Keyed by `ExactName`: a `String` dictionary takes the twins as one key.
    private static let images: [ExactName: (width: Int, height: Int)] = [ExactName(composed): (64, 32), ExactName(decomposed): (40, 80), ExactName(copy): (40, 80)]
    /// What `small` (width 16) makes of each.
    private static let made: [ExactName: String] = [ExactName(composed): "16x8", ExactName(decomposed): "16x32", ExactName(copy): "16x32"]

    func testTwinsAndACopyEachKeepTheirOwnResultsAsACleanRunMakesThem() async throws {
        let project = try Self.project(prefix: "twins", sources: [Self.composed, Self.decomposed])
        defer { project.remove() }
        let first = try await Self.run(project)
        XCTAssertEqual(first.sources, [Self.decomposed, Self.composed].map(ExactName.init(_:)), "two sources, in byte order")
        try Self.assertOwnResults(first)
        try await Self.assertSameAsClean(first, sources: [Self.composed, Self.decomposed])
        let query = await CLIHarness.run(["results", project.path + "/pipeline.yml"])
        XCTAssertEqual(query.status, 0, query.stderr)
        XCTAssertEqual(Self.sourceLines(query.stdout), [Self.decomposed, Self.composed].map(ExactName.init(_:)))
        XCTAssertEqual(Self.resultLines(query.stdout).count, 2, "one result per source: \(query.stdout)")
        let json = await CLIHarness.run(["results", project.path + "/pipeline.yml", "--json"])
        for source in [Self.composed, Self.decomposed] {
            XCTAssertEqual(Self.occurrences(of: "\"\(source)\": [", in: json.stdout), 1, "a member of its own: \(json.stdout)")
        }
        let one = await CLIHarness.run(["results", project.path + "/pipeline.yml", Self.decomposed])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(Self.sourceLines(one.stdout), [ExactName(Self.decomposed)])
        XCTAssertEqual(Self.resultLines(one.stdout).count, 1, one.stdout)
        let report = await CLIHarness.run(["report", project.path + "/pipeline.yml"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: project.path + "/report.html", encoding: .utf8)
        for source in [Self.composed, Self.decomposed] {
            XCTAssertEqual(Self.occurrences(of: "<figcaption>\(source) ·", in: html), 1, "a row of its own")
        }

        // A byte copy of the decomposed twin: its work is shared, its result is its own.
        try project.write(Self.copy, data: TestImages.png(width: 40, height: 80))
        let copied = try await Self.run(project)
        XCTAssertEqual(copied.sources, [Self.decomposed, Self.composed, Self.copy].map(ExactName.init(_:)))
        try Self.assertOwnResults(copied)
        try await Self.assertSameAsClean(copied, sources: [Self.composed, Self.decomposed, Self.copy])

        // The decomposed twin goes: its download goes with it, the composed one's stays.
        XCTAssertEqual(unlink(project.path + "/" + Self.decomposed), 0)
        let removed = try await Self.run(project)
        XCTAssertEqual(removed.sources, [Self.composed, Self.copy].map(ExactName.init(_:)))
        try Self.assertOwnResults(removed)
        try await Self.assertSameAsClean(removed, sources: [Self.composed, Self.copy])
    }

    func testAddingTheTwinOfASourceKeepsThatSourcesResults() async throws {
        let project = try Self.project(prefix: "twin-added", sources: [Self.composed])
        defer { project.remove() }
        _ = try await Self.run(project)
        try project.write(Self.decomposed, data: TestImages.png(width: 40, height: 80))
        let added = try await Self.run(project)
        XCTAssertEqual(added.sources, [Self.decomposed, Self.composed].map(ExactName.init(_:)))
        try Self.assertOwnResults(added)
        try await Self.assertSameAsClean(added, sources: [Self.composed, Self.decomposed])
    }

    // MARK: - What a run leaves

    /// What a run left: each source's `small` results (name, download path, dimensions, MD5) and
    /// every downloaded file (path below `build/`, byte for byte) with its SHA-256 and dimensions.
    private struct Outcome: Equatable {
        var results: [ExactName: [String]]
        var downloads: [ExactName: String]
        var sources: [ExactName] { results.keys.sorted() }
    }

    private static func project(prefix: String, sources: [String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: prefix)
        for source in sources {
            let size = try XCTUnwrap(images[ExactName(source)])
            try directory.write(source, data: TestImages.png(width: size.width, height: size.height))
        }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                download: build
                steps:
                  small: {robot: /image/resize, use: ":original", width: 16, result: true}
            """)
        return directory
    }

    /// Runs the project and reads what the run left.
    private static func run(_ project: TemporaryDirectory) async throws -> Outcome {
        let run = await CLIHarness.run(["run", project.path + "/pipeline.yml", "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        var bySource: [ExactName: [String]] = [:]
        for entry in results["assemblies"]?.arrayValue ?? [] {
            for file in entry["files"]?.arrayValue ?? [] { if let path = file["path"]?.stringValue { bySource[ExactName(path), default: []] += [] } }
            for result in entry["results"]?["small"]?.arrayValue ?? [] {
                let source = ExactName(result["source"]?.stringValue ?? "(none)")
                let facts = [
                    result["name"]?.stringValue, result["local_path"]?.stringValue, result["md5hash"]?.stringValue,
                    "\(result["meta"]?["width"]?.intValue ?? 0)x\(result["meta"]?["height"]?.intValue ?? 0)",
                ]
                bySource[source, default: []].append(facts.map { $0 ?? "-" }.joined(separator: " "))
            }
        }
        var downloads: [ExactName: String] = [:]
        let build = project.path + "/build/small"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: build)) ?? [] {
            let data = try Data(contentsOf: URL(fileURLWithPath: build + "/" + name))
            let size = TestImages.pngSize(data).map { "\($0.width)x\($0.height)" } ?? "?"
            downloads[ExactName("build/small/" + name)] = FileHashing.sha256(data) + " " + size
        }
        return Outcome(results: bySource.mapValues { $0.sorted() }, downloads: downloads)
    }

    /// Each source has one `small` result, made of its own image, downloaded under its own name.
    private static func assertOwnResults(_ outcome: Outcome, line: UInt = #line) throws {
        for source in outcome.sources {
            let results = try XCTUnwrap(outcome.results[source])
            XCTAssertEqual(results.count, 1, "one result of \(source.text.debugDescription): \(results)", line: line)
            let expected = try XCTUnwrap(made[source])
            let name = String(source.text.dropFirst("images/".count))
            // Name, download path, MD5, dimensions; compared as `ExactName`s, since `String` takes the twins as one.
            let facts = (results.first ?? "").split(separator: " ").map { ExactName(String($0)) }
            XCTAssertEqual(facts.count, 4, "\(results)", line: line)
            guard facts.count == 4 else { continue }
            XCTAssertEqual(facts[0], ExactName(name), "named as its source: \(results)", line: line)
            XCTAssertEqual(facts[1], ExactName("build/small/" + name), "downloaded under its source's name: \(results)", line: line)
            XCTAssertEqual(facts[3], ExactName(expected), "made of its own image: \(results)", line: line)
            let download = outcome.downloads[ExactName("build/small/" + name)]?.split(separator: " ").last.map(String.init)
            XCTAssertEqual(download, expected, "the download is its own", line: line)
        }
        XCTAssertEqual(outcome.downloads.count, outcome.sources.count, "a download per source: \(outcome.downloads.keys.map(\.text.debugDescription))", line: line)
    }

    /// A clean run of `sources` in a fresh folder leaves the same results and downloads.
    private static func assertSameAsClean(_ outcome: Outcome, sources: [String], line: UInt = #line) async throws {
        let clean = try project(prefix: "twins-clean", sources: sources)
        defer { clean.remove() }
        let expected = try await run(clean)
        XCTAssertEqual(outcome, expected, "incremental equals clean", line: line)
    }

    /// The source lines of `pipeline results`' text (those not indented), byte for byte.
    private static func sourceLines(_ text: String) -> [ExactName] {
        text.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { ExactName(String($0)) }
    }

    /// The result lines of `pipeline results`' text (indented by two spaces).
    private static func resultLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }
    }

    /// How often `needle` occurs in `text`, byte for byte (`String.contains` takes canonically
    /// equivalent spellings as the same text).
    private static func occurrences(of needle: String, in text: String) -> Int {
        let bytes = Array(text.utf8), wanted = Array(needle.utf8)
        guard !wanted.isEmpty, bytes.count >= wanted.count else { return 0 }
        return (0...(bytes.count - wanted.count)).filter { bytes[$0..<$0 + wanted.count].elementsEqual(wanted) }.count
    }
}
