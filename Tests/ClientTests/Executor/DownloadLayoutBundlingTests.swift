@testable import Client
import Basics
import Crypto
import Planning
import XCTest

/// An archive of the files (`/file/compress`) keeps the name it was given (`archive_name`), even
/// of a lone source, which otherwise owns the results that name no source.
final class DownloadLayoutBundlingTests: XCTestCase {
    private func entry(_ sources: [String], _ results: [String: [(source: String?, name: String)]]) -> RunResults.Entry {
        RunResults.Entry(
            job: "j", planID: "p", assemblyID: nil, assemblyURL: nil, status: "ASSEMBLY_COMPLETED", message: nil, cached: false,
            files: sources.map { PlannedFile(path: $0, size: 1, digest: SHA256.digest($0)) },
            results: results.mapValues { $0.map { RunResults.ResultFile(source: $0.source, name: $0.name, url: "http://127.0.0.1/" + $0.name, size: 1, mime: nil, meta: .object([:])) } })
    }

    func testAnArchiveOfOneFileKeepsItsOwnName() {
        let made = entry(["clips/clip.mp4"], ["zip": [(nil, "bundle.zip")], "other": [(nil, "x.gif")]])
        let bundled = DownloadLayout.paths(of: [(made, DownloadLayout(patterns: ["clips/*.mp4"], bundling: ["zip"]))])["p"] ?? [:]
        XCTAssertEqual(bundled["zip"], ["zip/bundle.zip"])
        XCTAssertEqual(bundled["other"], ["other/clip.gif"], "another step's result without a source is still the lone source's")
        let unbundled = DownloadLayout.paths(of: [(made, DownloadLayout(patterns: ["clips/*.mp4"]))])["p"] ?? [:]
        XCTAssertEqual(unbundled["zip"], ["zip/clip.zip"])
    }
}
