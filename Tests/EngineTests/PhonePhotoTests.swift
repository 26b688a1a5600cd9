import Basics
import Engine
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// `/image/resize` on a phone's portrait photo (stored 1200x800 landscape with EXIF orientation 6,
/// and a GPS position, an artist, XMP and IPTC), made in the test with ffmpeg and exiftool: every
/// output has the size and orientation a person sees, and `strip` leaves nothing private in any
/// format the engine writes while keeping the colour profile.
final class PhonePhotoTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "phone-photo")
    }

    override func tearDown() { directory.remove() }

    private func tool(_ command: [String]) throws -> String { try MediaTool.output(command) }

    /// What exiftool reads of `path`: its size and the private fields, when any.
    private func read(_ path: String) throws -> JSONValue {
        let json = try tool(["exiftool", "-j", "-n", "-ImageWidth", "-ImageHeight", "-Orientation", "-GPSLatitude", "-Artist", "-XMP:all", "-IPTC:all",
                             "-ProfileDescription", path])
        return try XCTUnwrap(try JSONValue.parse(Data(json.utf8)).arrayValue?.first)
    }

    func testAPortraitPhonePhotoIsResizedAsSeenAndStripKeepsNothingPrivate() async throws {
        let photo = directory.path + "/portrait.jpg"
        _ = try tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=1200x800", "-frames:v", "1", photo + ".plain.jpg"])
        // A phone's wide-gamut colour profile (Display P3), which strip keeps: colours stay as taken.
        _ = try tool(["vips", "copy", photo + ".plain.jpg", photo + "[profile=p3]"])
        _ = try tool(["exiftool", "-q", "-overwrite_original", "-Orientation#=6", "-GPSLatitude=48.8566", "-GPSLatitudeRef=N",
                      "-GPSLongitude=2.3522", "-GPSLongitudeRef=E", "-Artist=Jane Doe", "-XMP-dc:Creator=Jane Doe",
                      "-IPTC:By-line=Jane Doe", photo])
        XCTAssertEqual(try read(photo)["GPSLatitude"]?.doubleValue ?? 0, 48.8566, accuracy: 0.001, "the test photo has its position")
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        func step(_ options: [String: JSONValue]) -> JSONValue {
            .object(["robot": .string("/image/resize"), "use": .string(":original"), "result": .bool(true)].merging(options) { $1 })
        }
        let steps: [String: JSONValue] = [
            "fit": step(["width": .int(320)]),
            "box": step(["width": .int(300), "height": .int(300)]),
            "cropped": step(["width": .int(200), "height": .int(100), "resize_strategy": .string("crop")]),
            "covered": step(["width": .int(200), "height": .int(100), "resize_strategy": .string("fillcrop"), "gravity": .string("top")]),
            "kept": step(["width": .int(320), "format": .string("jpg")]),
            "jpg": step(["width": .int(320), "format": .string("jpg"), "strip": .bool(true)]),
            "webp": step(["width": .int(320), "format": .string("webp"), "strip": .bool(true)]),
            "png": step(["width": .int(320), "format": .string("png"), "strip": .bool(true)]),
            "tiff": step(["width": .int(320), "format": .string("tiff"), "strip": .bool(true)]),
            "avif": step(["width": .int(320), "format": .string("avif"), "strip": .bool(true)]),
            "gif": step(["width": .int(320), "format": .string("gif"), "strip": .bool(true)]),
        ]
        let created = try await client.create(steps: .object(steps), files: [("file", "portrait.jpg", try Data(contentsOf: URL(fileURLWithPath: photo)))])
        XCTAssertEqual(created.status, 200, created.body.serialized())
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue), timeout: .seconds(60))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let upload = try XCTUnwrap(status["uploads"]?.arrayValue?.first)
        XCTAssertEqual(upload["meta"]?["width"], .int(800), "the original as a person sees it: portrait")
        XCTAssertEqual(upload["meta"]?["height"], .int(1200))

        let expected: [String: (Int, Int)] = [
            "fit": (320, 480), "box": (200, 300), "cropped": (200, 100), "covered": (200, 100),
            "kept": (320, 480), "jpg": (320, 480), "webp": (320, 480), "png": (320, 480), "tiff": (320, 480),
            "avif": (320, 480), "gif": (320, 480),
        ]
        for (name, size) in expected {
            let result = try XCTUnwrap(status["results"]?[name]?.arrayValue?.first, name)
            XCTAssertEqual(result["meta"]?["width"], .int(size.0), "\(name): \(result.serialized())")
            XCTAssertEqual(result["meta"]?["height"], .int(size.1), name)
            let path = directory.path + "/" + name + "-" + (result["name"]?.stringValue ?? "out")
            try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue)).body.write(to: URL(fileURLWithPath: path))
            let facts = try read(path)
            XCTAssertEqual(facts["ImageWidth"], .int(size.0), "\(name): the pixels stand upright: \(facts.serialized())")
            XCTAssertEqual(facts["ImageHeight"], .int(size.1), name)
            XCTAssertTrue(facts["Orientation"] == nil || facts["Orientation"] == .int(1), "\(name): no turn left to apply: \(facts.serialized())")
            guard ["jpg", "webp", "png", "tiff", "avif", "gif"].contains(name) else { continue }
            let kept = facts.objectValue?.keys.filter { !["SourceFile", "ImageWidth", "ImageHeight", "Orientation", "ProfileDescription"].contains($0) } ?? []
            XCTAssertEqual(kept.sorted(), [], "\(name): strip leaves no position, artist, XMP or IPTC: \(facts.serialized())")
            // GIF has no colour profile to keep.
            XCTAssertEqual(facts["ProfileDescription"], name == "gif" ? nil : .string("sP3C"), "\(name): strip keeps the colour profile: \(facts.serialized())")
        }
    }
}
