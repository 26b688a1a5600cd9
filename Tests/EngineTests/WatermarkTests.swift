import Basics
import Engine
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `/image/resize` with `watermark_url`: images ffmpeg makes, a watermark served over HTTP on
/// 127.0.0.1, and the result's pixels read back with ffmpeg, not with libvips.
final class WatermarkTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var origin: ServerProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "watermark")
        try make("base.png", "color=c=white:s=200x100")
        try make("mark.png", "color=c=red:s=20x20")
        origin = try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/EngineTests/Fixtures/origin_server.py", directory.path])
    }

    override func tearDown() {
        origin.stop()
        directory.remove()
    }

    private func make(_ name: String, _ source: String) throws {
        let outcome = try ChildProcess.runBlocking(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", directory.path + "/" + name], timeout: .seconds(30))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
    }

    /// The RGB pixels of an image, as ffmpeg decodes it.
    private func pixels(_ data: Data, width: Int) throws -> (Int, Int) -> [UInt8] {
        let path = directory.path + "/result.png"
        try data.write(to: URL(fileURLWithPath: path))
        let raw = directory.path + "/result.rgb"
        let outcome = try ChildProcess.runBlocking(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw], timeout: .seconds(30))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        return { x, y in Array(bytes[(y * width + x) * 3 ..< (y * width + x) * 3 + 3]) }
    }

    private func run(_ options: [String: JSONValue], loopback: Bool = true) async throws -> (JSONValue, EngineClient, EngineTestServer) {
        let server = try EngineTestServer(robotLimits: RobotLimits(importsFromLoopback: loopback))
        let client = EngineClient(server: server)
        var step: [String: JSONValue] = ["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(200), "height": .int(100)]
        step.merge(options) { $1 }
        step = step.filter { $0.value != .null }
        let base = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/base.png"))
        let created = try await client.create(steps: .object(["marked": .object(step)]), files: [("file", "a.png", base), ("file", "b.png", base)])
        XCTAssertEqual(created.status, 200, created.body.serialized())
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        return (status, client, server)
    }

    func testTheWatermarkLandsWhereItIsToldFadedAndScaled() async throws {
        let mark = "http://127.0.0.1:\(origin.port)/files/mark.png"
        let (corner, client, server) = try await run([
            "watermark_url": .string(mark), "watermark_position": .string("bottom-right"),
            "watermark_x_offset": .int(5), "watermark_y_offset": .int(5), "watermark_opacity": .double(0.5),
        ])
        defer { server.stop() }
        XCTAssertEqual(corner["ok"], .string("ASSEMBLY_COMPLETED"), corner.serialized())
        let files = try XCTUnwrap(corner["results"]?["marked"]?.arrayValue)
        XCTAssertEqual(files.count, 2, "one fetch serves every file of the step")
        let pixel = try pixels(try await client.download(try XCTUnwrap(files.first?["ssl_url"]?.stringValue)).body, width: 200)
        XCTAssertEqual(pixel(10, 10), [255, 255, 255], "outside the watermark")
        for (x, y) in [(176, 76), (194, 94)] {
            let inside = pixel(x, y)
            XCTAssertEqual(Int(inside[0]), 255, accuracy: 2)
            XCTAssertEqual(Int(inside[1]), 128, accuracy: 4, "half opacity: \(inside)")
        }
        XCTAssertEqual(pixel(174, 74), [255, 255, 255], "5 pixels in from the bottom-right corner")
        XCTAssertEqual(pixel(196, 96), [255, 255, 255])
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: server.data.path + "/results").filter { $0.contains(".watermark") }
        XCTAssertEqual(leftovers, [], "the fetched watermark is removed after the step")

        let (scaled, scaledClient, scaledServer) = try await run(["watermark_url": .string(mark), "watermark_size": .string("50%")])
        defer { scaledServer.stop() }
        let centre = try pixels(try await scaledClient.download(try XCTUnwrap(scaled["results"]?["marked"]?.arrayValue?.first?["ssl_url"]?.stringValue)).body, width: 200)
        XCTAssertEqual(centre(100, 50)[1], 0, "red in the centre")
        XCTAssertEqual(centre(80, 30)[1], 0, "fitted into half the image: 50x50")
        XCTAssertEqual(centre(70, 50), [255, 255, 255], "and no wider")
    }

    func testAWatermarkAloneKeepsTheSizeAndOneOutsideTheImageIsAnError() async throws {
        let mark = "http://127.0.0.1:\(origin.port)/files/mark.png"
        let (kept, client, server) = try await run(["width": .null, "height": .null, "watermark_url": .string(mark), "watermark_position": .string("top-left")])
        defer { server.stop() }
        XCTAssertEqual(kept["ok"], .string("ASSEMBLY_COMPLETED"), kept.serialized())
        let file = try XCTUnwrap(kept["results"]?["marked"]?.arrayValue?.first)
        XCTAssertEqual([file["meta"]?["width"], file["meta"]?["height"]], [.int(200), .int(100)], "no width or height: the size is kept")
        let pixel = try pixels(try await client.download(try XCTUnwrap(file["ssl_url"]?.stringValue)).body, width: 200)
        XCTAssertGreaterThan(pixel(5, 5)[0], 250)
        XCTAssertLessThan(pixel(5, 5)[1], 5, "red at the top-left: \(pixel(5, 5))")

        let (outside, _, other) = try await run(["watermark_url": .string(mark), "watermark_x_offset": .int(500)])
        other.stop()
        XCTAssertEqual(outside["error"], .string("INVALID_STEP_PARAMETER"), outside.serialized())
        XCTAssertTrue(outside["message"]?.stringValue?.contains("falls outside the 200x100 image") == true, outside.serialized())

        let whole = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/mark.png"))
        try whole.prefix(whole.count - 30).write(to: URL(fileURLWithPath: directory.path + "/broken.png"))
        let (damaged, _, third) = try await run(["watermark_url": .string("http://127.0.0.1:\(origin.port)/files/broken.png")])
        third.stop()
        XCTAssertEqual(damaged["error"], .string("IMAGE_RESIZE_ERROR"), damaged.serialized())
        XCTAssertTrue(damaged["message"]?.stringValue?.contains("the watermark at") == true, "blamed on the watermark: \(damaged.serialized())")
    }

    func testAWatermarkThatCannotBeFetchedFailsTheStep() async throws {
        let (refused, _, server) = try await run(["watermark_url": .string("http://127.0.0.1:\(origin.port)/files/mark.png")], loopback: false)
        server.stop()
        XCTAssertEqual(refused["error"], .string("IMPORT_FILE_ERROR"), refused.serialized())
        XCTAssertTrue(refused["message"]?.stringValue?.contains("loopback") == true, refused.serialized())

        let (missing, _, other) = try await run(["watermark_url": .string("http://127.0.0.1:\(origin.port)/files/none.png")])
        other.stop()
        XCTAssertTrue(missing["message"]?.stringValue?.contains("answered 404") == true, missing.serialized())

        for (options, expected) in [
            (["watermark_url": JSONValue.string("file:///etc/passwd")], "not an http(s) URL"),
            (["watermark_url": .string("http://example.com/m.png"), "watermark_size": .string("300%")], "percentage"),
            (["watermark_url": .string("http://example.com/m.png"), "watermark_opacity": .int(3)], "from 0 to 1"),
            (["watermark_url": .string("http://example.com/m.png"), "watermark_position": .string("middle")], "watermark_position 'middle'"),
        ] {
            let (status, _, server) = try await run(options)
            server.stop()
            XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
            XCTAssertTrue(status["message"]?.stringValue?.contains(expected) == true, status.serialized())
        }
    }
}
