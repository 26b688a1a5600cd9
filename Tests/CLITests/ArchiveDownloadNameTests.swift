import Foundation
import TestSupport
import XCTest

/// docs/engine.md: `/file/compress` names its archive by `archive_name`; the download keeps that
/// name, also for an Assembly of one file.
final class ArchiveDownloadNameTests: XCTestCase {
    func testAnArchiveOfOneFileIsDownloadedUnderItsArchiveName() async throws {
        let directory = try TestProject.resizing(
            prefix: "archive-name", endpoint: "local", images: ["a.png": (4, 2)],
            steps: "      zip: {robot: /file/compress, use: \":original\", format: zip, archive_name: bundle}", download: "out")
        defer { directory.remove() }
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/out/zip")
        XCTAssertEqual(files, ["bundle.zip"])
    }
}
