import Basics
import Foundation
import TestSupport
import XCTest

/// What `pipeline init` writes is private by default: a phone's photo or video, with its GPS
/// position and its maker's name, runs through init's manifest and no result carries either; a
/// photo's colour profile survives `strip`, so its colours do not change.
final class InitPrivacyTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "init-private") }
    override func tearDown() { directory.remove() }

    /// What exiftool reads of `path`: the position, the artist and the colour profile's name.
    private func read(_ path: String) throws -> JSONValue {
        let json = try MediaTool.output(["exiftool", "-j", "-n", "-GPSLatitude", "-GPSPosition", "-Artist", "-ProfileDescription", path])
        return try XCTUnwrap(try JSONValue.parse(Data(json.utf8)).arrayValue?.first)
    }

    /// A phone's photo: a Display P3 profile, a GPS position and who took it.
    private func photo(_ name: String) throws -> String {
        let path = directory.path + "/" + name
        let plain = path + ".plain.jpg"
        try MediaCorpus.image(plain, width: 640, height: 480)
        _ = try MediaTool.output(["vips", "copy", plain, path + "[profile=p3]"])
        try FileManager.default.removeItem(atPath: plain)
        _ = try MediaTool.output(["exiftool", "-q", "-overwrite_original", "-GPSLatitude=52.1", "-GPSLatitudeRef=N", "-GPSLongitude=4.3",
                                  "-GPSLongitudeRef=E", "-Artist=Jane Roe", path])
        return path
    }

    func testInitsImagesManifestKeepsThePositionAndTheNameOutAndTheColours() async throws {
        let source = try read(try photo("IMG_0001.jpg"))
        XCTAssertEqual(source["Artist"], .string("Jane Roe"), "the test photo says who took it: \(source.serialized())")
        XCTAssertNotNil(source["GPSLatitude"], source.serialized())
        XCTAssertEqual(source["ProfileDescription"], .string("sP3C"), source.serialized())
        let made = await CLIHarness.run(["init", directory.path, "--kind", "images"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let manifest = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        XCTAssertTrue(manifest.contains("strip: true"), manifest)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json")))
        let files = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["small"]?.arrayValue ?? [] }
        XCTAssertEqual(files.count, 1, results.serialized())
        for file in files {
            let local = try XCTUnwrap(file["local_path"]?.stringValue, file.serialized())
            let written = try read(directory.path + "/" + local)
            XCTAssertNil(written["GPSLatitude"], "\(local): \(written.serialized())")
            XCTAssertNil(written["GPSPosition"], "\(local): \(written.serialized())")
            XCTAssertNil(written["Artist"], "\(local): \(written.serialized())")
            XCTAssertEqual(written["ProfileDescription"], .string("sP3C"), "\(local): the colour profile stays: \(written.serialized())")
        }
    }

    func testInitsMediaManifestKeepsAVideosPositionAndNameOut() async throws {
        let clip = directory.path + "/clips/trip.mp4"
        try FileManager.default.createDirectory(atPath: directory.path + "/clips", withIntermediateDirectories: true)
        _ = try MediaTool.output(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "1",
                                  "-metadata", "location=+52.1000+004.3000/", "-metadata", "artist=Jane Roe",
                                  "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        let source = try read(clip)
        XCTAssertEqual(source["Artist"], .string("Jane Roe"), source.serialized())
        XCTAssertNotNil(source["GPSLatitude"], source.serialized())
        let made = await CLIHarness.run(["init", directory.path, "--kind", "media"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let encoded = try read(directory.path + "/build/web/clips/trip.mp4")
        XCTAssertNil(encoded["GPSLatitude"], encoded.serialized())
        XCTAssertNil(encoded["Artist"], encoded.serialized())
    }
}
