import Basics
import Engine
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `/meta/write` on an image, a video and an audio file ffmpeg makes in the test; what was written
/// is read back with exiftool and ffprobe, and the pictures and sound are checked unchanged.
final class MetaWriteRobotTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "meta")
    }

    override func tearDown() { directory.remove() }

    private func tool(_ command: [String]) throws -> String { try MediaTool.output(command) }

    private func make(_ name: String, _ arguments: [String]) throws -> Data {
        _ = try tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y"] + arguments + [directory.path + "/" + name])
        return try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name))
    }

    /// The MD5 of the decoded pictures and sound: equal when nothing was re-encoded.
    private func decodedDigest(_ path: String) throws -> String {
        try tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", path, "-map", "0", "-f", "md5", "-"])
    }

    func testTagsAreWrittenWithoutTouchingTheContent() async throws {
        let photo = try make("photo.jpg", ["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1"])
        let clip = try make("clip.mp4", ["-f", "lavfi", "-i", "testsrc=duration=1:size=64x48:rate=10", "-f", "lavfi", "-i", "sine=duration=1",
                                          "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        let song = try make("song.mp3", ["-f", "lavfi", "-i", "sine=duration=1"])
        let artist = "Ann -o " + directory.path + "/escaped"
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(["tagged": .object([
            "robot": .string("/meta/write"), "use": .string(":original"),
            "data_to_write": .object(["Copyright": .string("© Example Ltd"), "Artist": .string(artist), "XMP-dc:Rights": .int(2026)]),
        ])]), files: [("file", "photo.jpg", photo), ("file", "clip.mp4", clip), ("file", "song.mp3", song), ("file", "notes.txt", Data("hi".utf8)),
                  ("file", "photo.mp3", photo), ("file", "clip.jpg", clip), ("file", "fake.jpg", Data("not a picture".utf8))])
        XCTAssertEqual(created.status, 200, created.body.serialized())
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue), timeout: .seconds(60))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        // Media types come from the content, as the service reports them, whatever the name says.
        let uploads = try XCTUnwrap(status["uploads"]?.arrayValue)
        let types = Dictionary(uniqueKeysWithValues: uploads.compactMap { file in file["name"]?.stringValue.map { ($0, file["mime"]?.stringValue ?? "") } })
        XCTAssertEqual(types["photo.mp3"], "image/jpeg")
        XCTAssertEqual(types["clip.jpg"], "video/mp4")
        XCTAssertEqual(types["fake.jpg"], "text/plain")
        XCTAssertEqual(types["song.mp3"], "audio/mpeg")
        let results = try XCTUnwrap(status["results"]?["tagged"]?.arrayValue)
        XCTAssertEqual(Set(results.compactMap { $0["name"]?.stringValue }), ["photo.jpg", "clip.mp4", "song.mp3", "photo.mp3", "clip.jpg"],
                       "a text file is not taken")

        for result in results {
            let name = try XCTUnwrap(result["name"]?.stringValue)
            let path = directory.path + "/out-" + name
            try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue)).body.write(to: URL(fileURLWithPath: path))
            let original = directory.path + "/" + (name.hasPrefix("photo") ? "photo.jpg" : name == "clip.jpg" ? "clip.mp4" : name)
            XCTAssertEqual(try decodedDigest(path), try decodedDigest(original), "\(name): the content is not re-encoded")
            // The tool and the container follow the content, whatever the name says.
            if name.hasPrefix("photo") {
                let read = try JSONValue.parse(Data(try tool(["exiftool", "-j", "-Copyright", "-Artist", "-XMP-dc:Rights", path]).utf8))
                XCTAssertEqual(read.arrayValue?.first?["Copyright"], .string("© Example Ltd"))
                XCTAssertEqual(read.arrayValue?.first?["Artist"], .string(artist), "a value is a value, never an option")
                XCTAssertEqual(read.arrayValue?.first?["Rights"], .int(2026))
            } else {
                let probed = try JSONValue.parse(Data(try tool(["ffprobe", "-v", "error", "-print_format", "json", "-show_format", path]).utf8))
                let tags = probed["format"]?["tags"]
                if name.hasPrefix("clip") { XCTAssertTrue(probed["format"]?["format_name"]?.stringValue?.hasPrefix("mov") == true, name) }
                XCTAssertEqual(tags?["copyright"], .string("© Example Ltd"), name)
                XCTAssertEqual(tags?["artist"], .string(artist), name)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/escaped"))
    }

    func testKeysAndValuesAreChecked() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        for (data, expected) in [
            (JSONValue.object(["Copyright<": .string("/etc/passwd")]), "is not a tag name"),
            (.object(["-config": .string("x")]), "is not a tag name"),
            (.object(["FileName": .string("../../../tmp/pwned.jpg")]), "file operation"),
            (.object(["System:Directory": .string("/tmp/x")]), "file operation"),
            (.object(["SymLink": .string("/tmp/x")]), "file operation"),
            (.object(["HardLink": .string("/tmp/x")]), "file operation"),
            (.object(["Geotag": .string("/etc/shadow")]), "file operation"),
            (.object(["all": .string("x")]), "file operation"),
            (.object(["Comment": .object([:])]), "must be a string or a number"),
            (.object([:]), "must be an object of metadata"),
            (.string("x"), "must be an object of metadata"),
        ] {
            let created = try await client.create(
                steps: .object(["tagged": .object(["robot": .string("/meta/write"), "use": .string(":original"), "data_to_write": data])]),
                files: [("file", "a.txt", Data("x".utf8))])
            let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
            XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
            XCTAssertTrue(status["message"]?.stringValue?.contains(expected) == true, status.serialized())
        }
    }
}
