import Basics
import Foundation
import TestSupport
import XCTest

/// The media example runs as it is, offline, on the embedded engine.
final class MediaExampleTests: XCTestCase {
    func testTheMediaExampleRunsOffline() async throws {
        let directory = try TemporaryDirectory(prefix: "media-example")
        defer { directory.remove() }
        let source = PackageRoot.path + "/examples/media"
        for name in ["pipeline.yml", "media/clip.mp4", "media/chime.ogg", "media/brochure.pdf"] {
            try directory.write(name, data: try Data(contentsOf: URL(fileURLWithPath: source + "/" + name)))
        }
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("[manifest.local-export]"), run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json")))
        let byJob = Dictionary(uniqueKeysWithValues: (results["assemblies"]?.arrayValue ?? []).compactMap { entry in
            entry["job"]?.stringValue.map { ($0, entry) }
        })
        XCTAssertEqual(byJob["videos"]?["results"]?["web"]?.arrayValue?.first?["meta"]?["video_codec"], .string("vp8"))
        XCTAssertEqual(byJob["videos"]?["results"]?["stored"]?.arrayValue?.count, 2)
        XCTAssertEqual(byJob["audio"]?["results"]?["bundle"]?.arrayValue?.first?["name"], .string("audio.zip"))
        XCTAssertEqual(byJob["documents"]?["results"]?["pages"]?.arrayValue?.count, 2)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/engine/exports/media-bucket/videos/clip.webm"))
    }
}
