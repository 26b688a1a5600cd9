import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// The local robots, through the Assembly API with real images.
final class RobotTests: XCTestCase {
    private func run(_ steps: JSONValue, files: [(String, String, Data)]) async throws -> JSONValue {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: steps, files: files)
        XCTAssertEqual(created.status, 200, created.body.serialized())
        return try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
    }

    private func step(_ robot: String, _ options: [String: JSONValue]) -> JSONValue {
        .object(options.merging(["robot": .string(robot)]) { _, new in new })
    }

    func testAParameterTheEngineDoesNotImplementFailsTheStepInsteadOfBeingIgnored() async throws {
        let status = try await run(.object(["thumb": step("/image/resize", ["width": .int(50), "colorspace": .string("Gray")])]),
                                   files: [("file", "a.png", TestImages.png(width: 100, height: 80))])
        XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
        XCTAssertTrue(status["message"]?.stringValue?.contains("does not implement 'colorspace'") == true, status.serialized())
    }

    func testResizeStrategies() async throws {
        let image = TestImages.png(width: 640, height: 480)
        let expected: [(String, Int, Int)] = [
            ("fit", 133, 100), ("fillcrop", 200, 100), ("stretch", 200, 100), ("pad", 200, 100), ("crop", 200, 100), ("min_fit", 200, 150),
        ]
        var steps: [String: JSONValue] = [:]
        for (strategy, _, _) in expected {
            steps[strategy] = step("/image/resize", ["use": .string(":original"), "width": .int(200), "height": .int(100),
                                                     "resize_strategy": .string(strategy), "result": .bool(true)])
        }
        let status = try await run(.object(steps), files: [("file", "photo.png", image)])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        for (strategy, width, height) in expected {
            let result = status["results"]?[strategy]?.arrayValue?.first
            XCTAssertEqual(result?["meta"], .object(["width": .int(width), "height": .int(height)]), strategy)
            XCTAssertEqual(result?["mime"], .string("image/png"), strategy)
        }
    }

    func testFormatQualityAndDownloads() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let steps = JSONValue.object(["small": step("/image/resize", [
            "use": .string(":original"), "width": .int(50), "format": .string("jpg"), "quality": .int(70),
        ])])
        let created = try await client.create(steps: steps, files: [("file", "logo.png", TestImages.png(width: 100, height: 40))])
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        let result = try XCTUnwrap(status["results"]?["small"]?.arrayValue?.first)
        XCTAssertEqual(result["name"], .string("logo.jpg"))
        XCTAssertEqual(result["mime"], .string("image/jpeg"))
        XCTAssertEqual(result["meta"], .object(["width": .int(50), "height": .int(20)]))
        let download = try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue))
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(Array(download.body.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
        XCTAssertEqual(result["size"], .int(download.body.count))
        // A result removed from the data folder since is gone (404), not a dropped connection.
        let id = try XCTUnwrap(result["id"]?.stringValue)
        let stored = try XCTUnwrap(FileManager.default.enumerator(atPath: server.data.path + "/results")?.compactMap { $0 as? String }
            .first { $0.contains(id) && $0.hasSuffix("logo.jpg") })
        try FileManager.default.removeItem(atPath: server.data.path + "/results/" + stored)
        let gone = try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue))
        XCTAssertEqual(gone.status, 404, gone.bodyText())
    }

    func testStepsRunInOrderAndLastStepsAreResults() async throws {
        let steps = JSONValue.object([
            "resized": step("/image/resize", ["use": .string(":original"), "width": .int(20)]),
            "hashed": step("/file/hash", ["use": .array([.string("resized")]), "algorithm": .string("md5")]),
            "originals": step("/file/hash", ["use": .object(["steps": .array([.object(["name": .string(":original")])])]), "result": .bool(false)]),
        ])
        let status = try await run(steps, files: [("a", "a.png", TestImages.png(width: 40, height: 40)), ("b", "b.png", TestImages.png(width: 80, height: 40))])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        XCTAssertEqual(status["results"]?.objectValue.map { Set($0.keys) }, ["hashed"], "only the last step, unless result says otherwise")
        let hashed = status["results"]?["hashed"]?.arrayValue ?? []
        XCTAssertEqual(hashed.count, 2)
        XCTAssertTrue(hashed.allSatisfy { $0["meta"]?["hash"]?.stringValue?.count == 32 && $0["meta"]?["width"] == .int(20) }, "md5 of the resized images")
        let uploads = status["uploads"]?.arrayValue ?? []
        XCTAssertEqual(Set(hashed.compactMap { $0["original_id"] }), Set(uploads.compactMap { $0["id"] }))
    }

    func testFilterKeepsWhatItAcceptsAndCanFail() async throws {
        let files = [("a", "wide.png", TestImages.png(width: 400, height: 10)), ("b", "narrow.png", TestImages.png(width: 10, height: 10))]
        let accepts = JSONValue.array([.array([.string("${file.meta.width}"), .string(">"), .int(300)])])
        let kept = try await run(.object(["wide": step("/file/filter", ["use": .string(":original"), "accepts": accepts])]), files: files)
        XCTAssertEqual(kept["results"]?["wide"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["wide.png"])

        let strict = try await run(.object(["wide": step("/file/filter", [
            "use": .string(":original"), "accepts": accepts, "error_on_decline": .bool(true),
        ])]), files: files)
        XCTAssertEqual(strict["error"], .string("FILE_FILTER_DECLINED_FILE"))
        XCTAssertTrue(strict["message"]?.stringValue?.contains("'narrow.png' was declined") == true)

        let declines = JSONValue.array([.array([.string("${file.name}"), .string("regex"), .string("^narrow")])])
        let declined = try await run(.object(["rest": step("/file/filter", ["use": .string(":original"), "declines": declines])]), files: files)
        XCTAssertEqual(declined["results"]?["rest"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["wide.png"])

        // A pattern that is not a regular expression is the step's mistake, not "no match".
        let broken = JSONValue.array([.array([.string("${file.name}"), .string("!regex"), .string("(narrow")])])
        let refused = try await run(.object(["rest": step("/file/filter", ["use": .string(":original"), "declines": broken])]), files: files)
        XCTAssertEqual(refused["error"], .string("INVALID_STEP_PARAMETER"), refused.serialized())
        XCTAssertTrue(refused["message"]?.stringValue?.contains("'(narrow' is not a regular expression") == true, refused.serialized())
    }

    func testHashAlgorithms() async throws {
        var steps: [String: JSONValue] = [:]
        for algorithm in ["md5", "sha1", "sha256", "sha384", "sha512"] {
            steps[algorithm] = step("/file/hash", ["use": .string(":original"), "algorithm": .string(algorithm)])
        }
        let status = try await run(.object(steps), files: [("f", "abc.txt", Data("abc".utf8))])
        let hashes = ["md5": "900150983cd24fb0d6963f7d28e17f72", "sha1": "a9993e364706816aba3e25717850c26c9cd0d89d"]
        for (algorithm, hash) in hashes {
            XCTAssertEqual(status["results"]?[algorithm]?.arrayValue?.first?["meta"]?["hash"], .string(hash), algorithm)
        }
        XCTAssertEqual(status["results"]?["sha512"]?.arrayValue?.first?["meta"]?["hash"]?.stringValue?.count, 128)
    }

    func testResizingSomethingThatIsNotAnImageFailsTheAssembly() async throws {
        let status = try await run(.object(["r": step("/image/resize", ["use": .string(":original"), "width": .int(10)])]),
                                   files: [("f", "notes.txt", Data("not an image".utf8))])
        XCTAssertEqual(status["error"], .string("IMAGE_RESIZE_ERROR"))
        XCTAssertTrue(status["message"]?.stringValue?.hasPrefix("step 'r' (/image/resize): cannot resize 'notes.txt'") == true, status.serialized())
    }

    func testAnImageDeclaringAHugeCanvasIsRefusedBeforeDecoding() async throws {
        // A PNG of a few dozen bytes whose header says 30000 x 30000 pixels (a decompression bomb).
        let script = "import struct, sys, zlib\nihdr = struct.pack('>IIBBBBB', 30000, 30000, 8, 2, 0, 0, 0)\n"
            + "chunk = lambda kind, data: struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))\n"
            + "open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(b'\\0' * 100)) + chunk(b'IEND', b''))"
        let directory = try TemporaryDirectory(prefix: "bomb")
        defer { directory.remove() }
        let made = try await ChildProcess.run(["python3", "-c", script, directory.path + "/bomb.png"], timeout: .seconds(30))
        XCTAssertEqual(made.status, 0, made.stderr)
        let status = try await run(.object(["r": step("/image/resize", ["use": .string(":original"), "width": .int(10)])]),
                                   files: [("f", "bomb.png", try Data(contentsOf: URL(fileURLWithPath: directory.path + "/bomb.png")))])
        XCTAssertEqual(status["error"], .string("IMAGE_TOO_LARGE"), status.serialized())
        XCTAssertEqual(status["message"], .string("step 'r' (/image/resize): 'bomb.png' is 30000x30000 pixels; the local engine takes at most 100000000 pixels"))
    }

    func testOptimizeNeverGrowsAFileAndKeepsItsPixels() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let png = TestImages.png(width: 120, height: 80)
        let steps = JSONValue.object([
            "jpg": step("/image/resize", ["use": .string(":original"), "width": .int(120), "format": .string("jpg"), "quality": .int(95)]),
            "small": step("/image/optimize", ["use": .array([.string(":original"), .string("jpg")]), "preserve_meta_data": .bool(false), "result": .bool(true)]),
        ])
        let created = try await client.create(steps: steps, files: [("file", "art.png", png)])
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let results = try XCTUnwrap(status["results"]?["small"]?.arrayValue)
        XCTAssertEqual(results.map { $0["name"] }, [.string("art.png"), .string("art.jpg")])
        for result in results {
            let original = try XCTUnwrap(result["meta"]?["original_size"]?.intValue)
            XCTAssertLessThanOrEqual(try XCTUnwrap(result["size"]?.intValue), original, "\(result["name"] ?? .null)")
        }
        XCTAssertEqual(results[0]["meta"]?["width"], .int(120), "the same pixels")
        XCTAssertLessThan(try XCTUnwrap(results[1]["size"]?.intValue), try XCTUnwrap(results[1]["meta"]?["original_size"]?.intValue), "jpegtran shrinks a Q95 JPEG")

        let text = try await client.create(steps: .object(["small": step("/image/optimize", ["use": .string(":original")])]),
                                           files: [("note", "notes.txt", Data("not an image".utf8))])
        let passed = try await client.wait(try XCTUnwrap(text.body["assembly_id"]?.stringValue))
        let body = try await client.download(try XCTUnwrap(passed["results"]?["small"]?.arrayValue?.first?["ssl_url"]?.stringValue)).body
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "not an image", "other files pass through")
    }

    func testATruncatedImageFailsInsteadOfGivingABlankResult() async throws {
        let png = TestImages.png(width: 200, height: 150)
        let status = try await run(.object(["r": step("/image/resize", ["use": .string(":original"), "width": .int(64)])]),
                                   files: [("f", "cut.png", png.prefix(png.count / 2))])
        XCTAssertEqual(status["error"], .string("IMAGE_RESIZE_ERROR"), status.serialized())
        XCTAssertTrue(status["message"]?.stringValue?.hasPrefix("step 'r' (/image/resize): cannot resize 'cut.png'") == true, status.serialized())
    }

    func testEmptyAndSignatureOnlyImagesFailTheirAssemblyAndTheEngineGoesOn() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let resize = JSONValue.object(["r": step("/image/resize", ["use": .string(":original"), "width": .int(64)])])
        for (name, bytes) in [("empty.png", Data()), ("empty.jpg", Data()), ("signature.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))] {
            let created = try await client.create(steps: resize, files: [("f", name, bytes)])
            let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue, created.body.serialized()))
            let message = status["message"]?.stringValue ?? ""
            XCTAssertNotNil(status["error"], "\(name): \(status.serialized())")
            XCTAssertTrue(message.contains("'\(name)'") && !message.hasSuffix(": "), "\(name): the message says which file and why: \(message)")
        }
        let created = try await client.create(steps: resize, files: [("f", "photo.png", TestImages.png(width: 128, height: 96))])
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), "the engine is still up: \(status.serialized())")
    }

    func testRotationStripAndProgressive() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let steps = JSONValue.object([
            "turned": step("/image/resize", ["use": .string(":original"), "width": .int(200), "rotation": .int(90), "result": .bool(true)]),
            "web": step("/image/resize", ["use": .string(":original"), "width": .int(200), "format": .string("jpg"), "progressive": .bool(true),
                                          "strip": .bool(true), "result": .bool(true)]),
        ])
        let created = try await client.create(steps: steps, files: [("file", "photo.png", TestImages.png(width: 640, height: 480))])
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        XCTAssertEqual(status["results"]?["turned"]?.arrayValue?.first?["meta"], .object(["width": .int(150), "height": .int(200)]))
        let jpeg = try await client.download(try XCTUnwrap(status["results"]?["web"]?.arrayValue?.first?["ssl_url"]?.stringValue)).body
        let bytes = [UInt8](jpeg)
        let progressive = zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 }
        XCTAssertTrue(progressive, "a progressive JPEG has an SOF2 marker")
        let odd = try await client.create(steps: .object(["r": step("/image/resize", ["use": .string(":original"), "width": .int(10), "rotation": .int(45)])]),
                                          files: [("file", "photo.png", TestImages.png(width: 64, height: 48))])
        let refused = try await client.wait(try XCTUnwrap(odd.body["assembly_id"]?.stringValue))
        XCTAssertEqual(refused["error"], .string("INVALID_STEP_PARAMETER"))
    }

    func testGravityAndCropRegionsKeepTheRightPart() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        // Red grows to the right and green downwards: a pixel's colour says where it came from.
        let steps = JSONValue.object([
            "corner": step("/image/resize", ["use": .string(":original"), "width": .int(100), "height": .int(100), "resize_strategy": .string("crop"),
                                             "gravity": .string("bottom-right"), "result": .bool(true)]),
            "left": step("/image/resize", ["use": .string(":original"), "width": .int(100), "height": .int(100), "resize_strategy": .string("fillcrop"),
                                           "gravity": .string("left"), "result": .bool(true)]),
            "region": step("/image/resize", ["use": .string(":original"), "width": .int(160), "result": .bool(true),
                                             "crop": .object(["x1": .int(0), "y1": .int(0), "x2": .int(320), "y2": .int(240)])]),
        ])
        let created = try await client.create(steps: steps, files: [("file", "photo.png", TestImages.png(width: 640, height: 480))])
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let directory = try TemporaryDirectory(prefix: "gravity")
        defer { directory.remove() }
        func pixels(_ step: String) async throws -> (first: [UInt8], last: [UInt8], width: Int?) {
            let result = try XCTUnwrap(status["results"]?[step]?.arrayValue?.first)
            let path = try directory.write(step + ".png", data: try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue)).body)
            let raw = directory.path + "/" + step + ".rgb"
            let outcome = try await ChildProcess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw], timeout: .seconds(30))
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
            return (Array(bytes.prefix(3)), Array(bytes.suffix(3)), result["meta"]?["width"]?.intValue)
        }
        let corner = try await pixels("corner")
        XCTAssertEqual(Double(corner.first[0]), 540.0 / 639 * 255, accuracy: 4, "the right edge's red")
        XCTAssertEqual(Double(corner.first[1]), 380.0 / 479 * 255, accuracy: 4, "the bottom edge's green")
        let left = try await pixels("left")
        XCTAssertEqual(left.width, 100)
        XCTAssertLessThan(left.first[0], 8, "covered, then cut from the left edge")
        let region = try await pixels("region")
        XCTAssertEqual(region.width, 160)
        XCTAssertLessThan(region.first[0], 8, "the top-left quarter starts at the image's corner")
        XCTAssertEqual(Double(region.last[0]), 319.0 / 639 * 255, accuracy: 6, "and ends at its middle")
    }

    func testTrimWhitespaceResizesOnlyTheContent() async throws {
        let directory = try TemporaryDirectory(prefix: "trim")
        defer { directory.remove() }
        // 200x100 white with a 50x20 red box at (60, 40).
        let script = """
            import struct, sys, zlib
            rows = b''.join(b'\\0' + b''.join(b'\\xff\\0\\0' if 60 <= x < 110 and 40 <= y < 60 else b'\\xff\\xff\\xff' for x in range(200)) for y in range(100))
            chunk = lambda kind, data: struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
            open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 200, 100, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
            """
        let made = try await ChildProcess.run(["python3", "-c", script, directory.path + "/boxed.png"], timeout: .seconds(30))
        XCTAssertEqual(made.status, 0, made.stderr)
        let status = try await run(.object([
            "trimmed": step("/image/resize", ["use": .string(":original"), "width": .int(50), "trim_whitespace": .bool(true), "result": .bool(true)]),
            "whole": step("/image/resize", ["use": .string(":original"), "width": .int(50), "result": .bool(true)]),
        ]), files: [("f", "boxed.png", try Data(contentsOf: URL(fileURLWithPath: directory.path + "/boxed.png")))])
        XCTAssertEqual(status["results"]?["trimmed"]?.arrayValue?.first?["meta"], .object(["width": .int(50), "height": .int(20)]), status.serialized())
        XCTAssertEqual(status["results"]?["whole"]?.arrayValue?.first?["meta"], .object(["width": .int(50), "height": .int(25)]))
    }
}
