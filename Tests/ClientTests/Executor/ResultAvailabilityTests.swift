import Basics
@testable import Client
import Foundation
import TestSupport
import XCTest

/// Which earlier results a run can still have: the engine's own files, live remote URLs (never
/// for the embedded engine), or downloads still in place.
final class ResultAvailabilityTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 2_000_000_000)

    private func file(_ url: String?, size: Int64? = 3, localPath: String? = nil, expires: Date? = nil) -> RunResults.ResultFile {
        RunResults.ResultFile(source: "a.png", name: "a.png", url: url, size: size, mime: nil, meta: .object([:]), localPath: localPath, expires: expires)
    }

    func testRemoteResultsCountUntilTheyExpireUnlessDownloadedAndNeverForTheEmbeddedEngine() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("out/a.png", "png")
        let hosted = ResultAvailability(localResults: nil, downloadsBase: folder.path, now: now)
        XCTAssertTrue(hosted.holds(file("https://example.invalid/a.png")))
        XCTAssertTrue(hosted.holds(file("https://example.invalid/a.png", expires: now.addingTimeInterval(60))))
        XCTAssertFalse(hosted.holds(file("https://example.invalid/a.png", expires: now)), "expired")
        XCTAssertTrue(hosted.holds(file("https://example.invalid/a.png", localPath: "out/a.png", expires: now)), "expired, downloaded")
        XCTAssertFalse(hosted.holds(file("https://example.invalid/a.png", localPath: "out/gone.png", expires: now)), "expired, download gone")
        XCTAssertFalse(hosted.holds(file("ftp://example.invalid/a.png")), "a scheme never fetched")
        let embedded = ResultAvailability(localResults: folder.path + "/engine", downloadsBase: folder.path, now: now)
        XCTAssertFalse(embedded.holds(file("https://example.invalid/a.png")), "the embedded engine's results are its own files")
        XCTAssertFalse(embedded.holds(file("https://example.invalid/a.png", localPath: "out/a.png")), "nor is a download of one trusted")
    }

    func testEngineFilesCountWhileThereAndNoLinkOrOutsideFileEver() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("engine/results/1/s/a.png", "png")
        try folder.write("elsewhere/a.png", "png")
        try folder.write("out/a.png", "png")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/engine/results/2", withDestinationPath: folder.path + "/elsewhere")
        let available = ResultAvailability(localResults: folder.path + "/engine", downloadsBase: folder.path, now: now)
        let url = { (path: String) in URL(fileURLWithPath: folder.path + "/" + path).absoluteString }
        XCTAssertTrue(available.holds(file(url("engine/results/1/s/a.png"))))
        XCTAssertFalse(available.holds(file(url("engine/results/1/s/a.png"), size: 19196)), "cut short since")
        XCTAssertTrue(available.holds(file(url("engine/results/1/s/a.png"), size: nil)), "a size the status did not give")
        XCTAssertFalse(available.holds(file(url("engine/results/1/s/gone.png"))), "gone, never downloaded")
        XCTAssertTrue(available.holds(file(url("engine/results/1/s/gone.png"), localPath: "out/a.png")), "gone, downloaded")
        XCTAssertFalse(available.holds(file(url("engine/results/2/a.png"))), "through a link")
        XCTAssertFalse(available.holds(file(url("elsewhere/a.png"), localPath: "out/a.png")), "not the engine's")
        let hosted = ResultAvailability(localResults: nil, downloadsBase: folder.path, now: now)
        XCTAssertFalse(hosted.holds(file(url("engine/results/1/s/a.png"))), "a file:// URL from a server")
    }
}
