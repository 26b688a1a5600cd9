@testable import Client
import Basics
import Crypto
import Planning
import XCTest

/// Where results land below a download folder: the source's folders below the pattern's fixed
/// prefix, the result's extension, and never two results on one path.
final class DownloadLayoutTests: XCTestCase {
    private func entry(_ sources: [String], _ results: [String: [(source: String?, name: String)]]) -> RunResults.Entry {
        RunResults.Entry(
            job: "j", planID: "p", assemblyID: nil, assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil, cached: false,
            files: sources.map { PlannedFile(path: $0, size: 1, digest: SHA256.digest($0)) },
            results: results.mapValues { $0.map { RunResults.ResultFile(source: $0.source, name: $0.name, url: "http://127.0.0.1/" + $0.name, size: 1, mime: nil, meta: .object([:])) } })
    }

    func testTheSourcesFoldersBelowThePatternsFixedPrefix() {
        let layout = DownloadLayout(patterns: ["photos/**/*.jpg", "docs/print/*.pdf", "!photos/private/**"])
        let paths = DownloadLayout.paths(of: [(entry(
            ["photos/2023/01/IMG.jpg", "photos/2024/07/IMG.jpg", "docs/print/Issue #42.pdf"],
            ["w320": [("photos/2023/01/IMG.jpg", "IMG.webp"), ("photos/2024/07/IMG.jpg", "IMG.webp")], "thumb": [("docs/print/Issue #42.pdf", "Issue #42.png")]]), layout)])["p"] ?? [:]
        XCTAssertEqual(paths["w320"], ["w320/2023/01/IMG.webp", "w320/2024/07/IMG.webp"])
        XCTAssertEqual(paths["thumb"], ["thumb/Issue #42.png"])
    }

    func testResultsThatWouldMeetKeepApart() {
        let layout = DownloadLayout(patterns: ["*"])
        let paths = DownloadLayout.paths(of: [(entry(
            ["a.jpg", "a.png", "clip.mp4"],
            ["web": [("a.jpg", "a.webp"), ("a.png", "a.webp")],
             "frames": [("clip.mp4", "clip_0.jpg"), ("clip.mp4", "clip_1.jpg")],
             "zip": [(nil, "all.zip"), ("gone.jpg", "all.zip")]]), layout)])["p"] ?? [:]
        XCTAssertEqual(paths["web"], ["web/a.jpg.webp", "web/a.png.webp"])
        XCTAssertEqual(paths["frames"], ["frames/clip-1.jpg", "frames/clip-2.jpg"])
        XCTAssertEqual(paths["zip"], ["zip/all.zip", "zip/all-2.zip"], "results of no one source keep their name, numbered when they meet")
    }

    func testTwinsWhoseNamesDifferOnlyByNormalizationEachKeepTheirOwnName() {
        let composed = "Cr\u{E8}me.png", decomposed = "Cre\u{300}me.png"
        let layout = DownloadLayout(patterns: ["img/*.png"])
        let paths = DownloadLayout.paths(of: [(entry(
            ["img/" + decomposed, "img/" + composed], ["small": [("img/" + decomposed, decomposed), ("img/" + composed, composed)]]), layout)])["p"] ?? [:]
        XCTAssertEqual(paths["small"]?.map { Array(($0 ?? "").utf8) }, ["small/" + decomposed, "small/" + composed].map { Array($0.utf8) })
    }

    func testALoneSourceOwnsResultsThatNameNoneAndNamesAreMadeSafe() {
        let layout = DownloadLayout(patterns: ["in/*"])
        let paths = DownloadLayout.paths(of: [(entry(["in/..hidden.png"], ["s": [(nil, "x.gif"), ("in/..hidden.png", "../../escape")]]), layout)])["p"] ?? [:]
        XCTAssertEqual(paths["s"], ["s/hidden-1.gif", "s/hidden-2"])
        for path in paths.values.flatMap({ $0 }).compactMap({ $0 }) { XCTAssertTrue(ProjectPath.isRelative(path), path) }
    }

    func testAssembliesSharingAFolderNeverMeet() {
        let layout = DownloadLayout(patterns: ["*"])
        var second = entry(["a.PNG"], ["web": [("a.PNG", "a.webp")]])
        second.planID = "q"
        let paths = DownloadLayout.paths(of: [(entry(["a.png"], ["web": [("a.png", "a.webp")]]), layout), (second, layout)])
        XCTAssertEqual(paths["p"]?["web"], ["web/a.png.webp"])
        XCTAssertEqual(paths["q"]?["web"], ["web/a.PNG.webp"])
    }

    func testAResultWithoutAURLIsNotPlaced() {
        var made = entry(["a.png"], ["s": [("a.png", "a.png")]])
        made.results["s"]?[0].url = nil
        XCTAssertEqual(DownloadLayout.paths(of: [(made, DownloadLayout(patterns: ["*.png"]))])["p"]?["s"], [nil])
    }
}
