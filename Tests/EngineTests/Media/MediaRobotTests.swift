import Basics
import Engine
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// The audio and video robots, through the Assembly API, on media ffmpeg generates in the test;
/// the results are checked with ffprobe, not with the engine's own code.
final class MediaRobotTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "media")
    }

    override func tearDown() { directory.remove() }

    /// A file ffmpeg makes from its test sources (`scripts/setup.sh` installs ffmpeg).
    private func make(_ name: String, _ arguments: [String]) throws -> Data {
        let path = directory.path + "/" + name
        let outcome = try ChildProcess.runBlocking(["ffmpeg", "-nostdin", "-loglevel", "error", "-y"] + arguments + [path], timeout: .seconds(60))
        XCTAssertEqual(outcome.status, 0, "ffmpeg is needed (scripts/setup.sh installs it): \(outcome.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// A 2-second 320x240 25 fps H.264 video with a 440 Hz AAC tone.
    private func clip() throws -> Data {
        try make("clip.mp4", ["-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                              "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
    }

    /// What ffprobe says of a downloaded result: the first stream of each kind.
    private func probe(_ data: Data, _ name: String) throws -> (video: JSONValue?, audio: JSONValue?, format: JSONValue?) {
        let path = directory.path + "/probe-" + name
        try data.write(to: URL(fileURLWithPath: path))
        let outcome = try ChildProcess.runBlocking(
            ["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path], timeout: .seconds(30))
        let json = try JSONValue.parse(Data(outcome.stdout.utf8))
        let streams = json["streams"]?.arrayValue ?? []
        return (streams.first { $0["codec_type"] == .string("video") }, streams.first { $0["codec_type"] == .string("audio") }, json["format"])
    }

    private func run(
        _ steps: [String: JSONValue], files: [(String, String, Data)], limits: RobotLimits = RobotLimits(), timeout: Duration = .seconds(120)
    ) async throws -> (JSONValue, EngineClient, EngineTestServer) {
        let server = try EngineTestServer(robotLimits: limits)
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(steps), files: files)
        XCTAssertEqual(created.status, 200, created.body.serialized())
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue), timeout: timeout)
        return (status, client, server)
    }

    private func step(_ robot: String, _ options: [String: JSONValue]) -> JSONValue {
        .object(options.merging(["robot": .string(robot), "use": .string(":original"), "result": .bool(true)]) { _, new in new })
    }

    func testVideoEncodePresetsFormatsAndTheUploadsMeta() async throws {
        let (status, client, server) = try await run([
            "iphone": step("/video/encode", ["preset": .string("iphone")]),
            "webm": step("/video/encode", ["preset": .string("webm"), "width": .int(160)]),
            "gif": step("/video/encode", ["format": .string("gif"), "width": .int(80), "height": .int(60), "resize_strategy": .string("stretch")]),
            "tuned": step("/video/encode", ["ffmpeg": .object(["b:v": .string("300k"), "r": .int(10)])]),
            "hls": step("/video/encode", ["preset": .string("hls/270p")]),
        ], files: [("file", "clip.mp4", try clip())])
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let upload = status["uploads"]?.arrayValue?.first?["meta"]
        XCTAssertEqual(upload?["width"], .int(320))
        XCTAssertEqual(upload?["height"], .int(240))
        XCTAssertEqual(upload?["framerate"]?.doubleValue, 25)
        XCTAssertEqual(upload?["video_codec"], .string("h264"))
        XCTAssertEqual(upload?["audio_codec"], .string("aac"))
        XCTAssertEqual(upload?["duration"]?.doubleValue ?? 0, 2, accuracy: 0.1)

        let expected: [(String, String, String?, Int, Int, String)] = [
            ("iphone", "h264", "aac", 480, 320, "clip.mp4"), ("webm", "vp8", "vorbis", 160, 120, "clip.webm"),
            ("gif", "gif", nil, 80, 60, "clip.gif"), ("tuned", "h264", "aac", 320, 240, "clip.mp4"),
            ("hls", "h264", "aac", 480, 270, "clip.ts"),
        ]
        for (name, video, audio, width, height, file) in expected {
            let result = try XCTUnwrap(status["results"]?[name]?.arrayValue?.first, name)
            XCTAssertEqual(result["name"], .string(file), name)
            let data = try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue)).body
            let probed = try probe(data, file)
            XCTAssertEqual(probed.video?["codec_name"], .string(video), name)
            XCTAssertEqual(probed.audio?["codec_name"], audio.map { .string($0) }, name)
            XCTAssertEqual(probed.video?["width"], .int(width), name)
            XCTAssertEqual(probed.video?["height"], .int(height), name)
            XCTAssertEqual(result["meta"]?["width"], .int(width), "the result's meta says what ffprobe says: \(name)")
        }
        let tuned = try await client.download(try XCTUnwrap(status["results"]?["tuned"]?.arrayValue?.first?["ssl_url"]?.stringValue)).body
        XCTAssertEqual(try probe(tuned, "tuned.mp4").video?["avg_frame_rate"], .string("10/1"))
        let hls = try await client.download(try XCTUnwrap(status["results"]?["hls"]?.arrayValue?.first?["ssl_url"]?.stringValue)).body
        XCTAssertEqual(try probe(hls, "hls.ts").format?["format_name"], .string("mpegts"), "an HLS preset makes MPEG-TS")
    }

    func testVideoThumbsAtCountsAndOffsets() async throws {
        let (status, client, server) = try await run([
            "three": step("/video/thumbs", ["count": .int(3), "width": .int(160), "height": .int(120)]),
            "at": step("/video/thumbs", ["offsets": .array([.double(0.5), .string("50%"), .int(99)]), "format": .string("png")]),
            "percent": step("/video/thumbs", ["count": .int(1)]),
        ], files: [("file", "clip.mp4", try clip()), ("other", "100%d.mp4", try clip())])
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let named = try XCTUnwrap(status["results"]?["percent"]?.arrayValue?.last)
        XCTAssertEqual(named["name"], .string("100%d_1.jpg"), "'%d' in a name is no frame number")
        let fetched = try await client.download(try XCTUnwrap(named["ssl_url"]?.stringValue))
        XCTAssertEqual(fetched.status, 200)
        let three = try XCTUnwrap(status["results"]?["three"]?.arrayValue).filter { $0["original_name"] == .string("clip.mp4") }
        XCTAssertEqual(three.map { $0["name"] }, ["clip_1.jpg", "clip_2.jpg", "clip_3.jpg"].map { .string($0) })
        XCTAssertEqual(three.compactMap { $0["meta"]?["thumb_offset"]?.doubleValue }, [0.5, 1, 1.5])
        for thumb in three {
            let probed = try probe(try await client.download(try XCTUnwrap(thumb["ssl_url"]?.stringValue)).body, "thumb.jpg")
            XCTAssertEqual(probed.video?["codec_name"], .string("mjpeg"))
            XCTAssertEqual(probed.video?["width"], .int(160))
            XCTAssertEqual(probed.video?["height"], .int(120))
        }
        let at = try XCTUnwrap(status["results"]?["at"]?.arrayValue).filter { $0["original_name"] == .string("clip.mp4") }
        XCTAssertEqual(at.count, 3)
        XCTAssertEqual(at.first?["meta"]?["width"], .int(320), "no size given: the video's")
        XCTAssertEqual(at.first?["mime"], .string("image/png"))
        XCTAssertEqual(at.last?["meta"]?["thumb_offset"]?.doubleValue ?? 99, 2, accuracy: 0.1, "an offset past the end takes the last frame")
    }

    func testAudioEncodePresetsBitratesAndSampleRates() async throws {
        let tone = try make("tone.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"])
        let (status, client, server) = try await run([
            "mp3": step("/audio/encode", ["preset": .string("mp3"), "bitrate": .int(64000), "sample_rate": .int(22050)]),
            "opus": step("/audio/encode", ["preset": .string("opus")]),
            "flac": step("/audio/encode", ["preset": .string("flac")]),
            "aac": step("/audio/encode", ["preset": .string("aac")]),
            "ogg": step("/audio/encode", ["preset": .string("ogg")]),
        ], files: [("file", "tone.wav", tone)])
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        XCTAssertEqual(status["uploads"]?.arrayValue?.first?["meta"]?["audio_samplerate"], .int(44100))
        for (name, codec, file) in [("mp3", "mp3", "tone.mp3"), ("opus", "opus", "tone.opus"), ("flac", "flac", "tone.flac"),
                                    ("aac", "aac", "tone.m4a"), ("ogg", "vorbis", "tone.ogg")] {
            let result = try XCTUnwrap(status["results"]?[name]?.arrayValue?.first, name)
            XCTAssertEqual(result["name"], .string(file))
            let probed = try probe(try await client.download(try XCTUnwrap(result["ssl_url"]?.stringValue)).body, file)
            XCTAssertEqual(probed.audio?["codec_name"], .string(codec), name)
            XCTAssertEqual(probed.format?["duration"]?.stringValue.flatMap(Double.init) ?? 0, 1, accuracy: 0.1, name)
        }
        let mp3 = try XCTUnwrap(status["results"]?["mp3"]?.arrayValue?.first)
        XCTAssertEqual(mp3["meta"]?["audio_samplerate"], .int(22050))
        XCTAssertEqual(Double(mp3["meta"]?["audio_bitrate"]?.intValue ?? 0), 64000, accuracy: 1000)
    }

    func testWaveformsAsImageAndAsPeaks() async throws {
        let tone = try make("tone.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ar", "8000"])
        let (status, client, server) = try await run([
            "image": step("/audio/waveform", ["width": .int(300), "height": .int(80)]),
            "peaks": step("/audio/waveform", ["format": .string("json"), "width": .int(100)]),
        ], files: [("file", "tone.wav", tone)])
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let image = try XCTUnwrap(status["results"]?["image"]?.arrayValue?.first)
        let probed = try probe(try await client.download(try XCTUnwrap(image["ssl_url"]?.stringValue)).body, "tone.png")
        XCTAssertEqual(probed.video?["codec_name"], .string("png"))
        XCTAssertEqual(probed.video?["width"], .int(300))
        XCTAssertEqual(probed.video?["height"], .int(80))
        let peaks = try XCTUnwrap(status["results"]?["peaks"]?.arrayValue?.first)
        let document = try JSONValue.parse(try await client.download(try XCTUnwrap(peaks["ssl_url"]?.stringValue)).body)
        XCTAssertEqual(document["length"], .int(100))
        XCTAssertEqual(document["samples_per_pixel"], .int(80), "8000 samples over 100 columns")
        let values = document["data"]?.arrayValue?.compactMap(\.intValue) ?? []
        XCTAssertEqual(values.count, 200)
        // ffmpeg's sine source peaks at an eighth of full scale: about 4096.
        XCTAssertEqual(Double(values.max() ?? 0), 4096, accuracy: 200)
        XCTAssertEqual(Double(values.min() ?? 0), -4096, accuracy: 200)
    }

    func testWhatIsNotMediaOrReachesElsewhereFailsTheStepByName() async throws {
        // A playlist would make ffmpeg read another file (or fetch a URL): only media demuxers read inputs.
        let secret = try directory.write("secret.wav", data: try make("secret-source.wav", ["-f", "lavfi", "-i", "sine=duration=1"]))
        let playlist = Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:\(secret)\n#EXT-X-ENDLIST\n".utf8)
        for (name, data) in [("notes.mp4", Data("not a video".utf8)), ("list.mp4", playlist)] {
            let (status, _, server) = try await run(["mp3": step("/audio/encode", [:])], files: [("file", name, data)])
            server.stop()
            XCTAssertNotNil(status["error"], "\(name): \(status.serialized())")
            let message = status["message"]?.stringValue ?? ""
            XCTAssertTrue(message.contains("step 'mp3' (/audio/encode)") && message.contains(name), message)
            XCTAssertFalse(message.contains(directory.path), "no engine paths in messages: \(message)")
        }
        let invalid: [JSONValue] = [
            step("/video/encode", ["ffmpeg": .object(["i": .string("/etc/passwd")])]),
            step("/video/encode", ["ffmpeg": .object(["r": .int(100_000)])]),
            step("/video/encode", ["preset": .string("webm"), "format": .string("mp4")]),
            step("/video/encode", ["preset": .string("hls-720p"), "format": .string("gif")]),
            step("/video/thumbs", ["count": .string("3")]),
        ]
        let video = try clip()
        for bad in invalid {
            let (status, _, server) = try await run(["bad": bad], files: [("file", "clip.mp4", video)])
            server.stop()
            XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
        }
    }

    func testMediaLongerThanTheEngineTakesIsRefused() async throws {
        let clip = try clip()
        for (name, step) in [("mp3", step("/audio/encode", [:])), ("thumbs", step("/video/thumbs", ["count": .int(1)]))] {
            let (status, _, server) = try await run([name: step], files: [("file", "clip.mp4", clip)], limits: RobotLimits(mediaDuration: 1.5))
            server.stop()
            XCTAssertEqual(status["error"], .string("FILE_TOO_LONG"), status.serialized())
            XCTAssertTrue(status["message"]?.stringValue?.contains("'clip.mp4' lasts 2 s; the local engine takes at most 1 s") == true, status.serialized())
        }
    }

    /// An engine encoding a two-minute clip to 1080p, once ffmpeg runs: the server, a client and the Assembly's id.
    private func encodingLongClip() async throws -> (server: EngineTestServer, client: EngineClient, id: String) {
        let long = try make("long.mp4", ["-f", "lavfi", "-i", "testsrc=duration=120:size=640x360:rate=25", "-c:v", "libx264", "-preset", "ultrafast"])
        let server = try EngineTestServer()
        let client = EngineClient(server: server)
        let created = try await client.create(
            steps: .object(["slow": step("/video/encode", ["preset": .string("web/mp4/1080p")])]), files: [("file", "long.mp4", long)])
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let started = await eventually(within: .seconds(20)) { Self.encoders(writing: id) > 0 }
        XCTAssertTrue(started, "ffmpeg encodes")
        return (server, client, id)
    }

    func testCancelingStopsTheEncoderAtOnce() async throws {
        let (server, client, id) = try await encodingLongClip()
        defer { server.stop() }
        let canceled = try await client.http.send(HTTPRequest(method: "DELETE", url: client.base + "/assemblies/" + id))
        XCTAssertEqual(canceled.status, 200)
        let stopped = await eventually(within: .seconds(3)) { Self.encoders(writing: id) == 0 }
        XCTAssertTrue(stopped, "ffmpeg was killed with the Assembly")
        let final = try await client.status(id)
        XCTAssertEqual(final["ok"], .string("ASSEMBLY_CANCELED"))
    }

    func testStoppingTheEngineEndsTheEncoderAndTheAssemblyStaysToResume() async throws {
        let (server, _, id) = try await encodingLongClip()
        // As a run's embedded engine stops when the run is interrupted: no tool outlives it.
        server.stop(keepData: true)
        defer { server.data.remove() }
        XCTAssertEqual(Self.encoders(writing: id), 0, "ffmpeg was ended before the engine stopped")
        let record = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: server.data.path + "/assemblies/" + id + ".json")))
        XCTAssertEqual(record["ok"], .string("ASSEMBLY_EXECUTING"), "not failed: the next engine runs it again")
        XCTAssertNil(record["error"])
    }

    /// How many ffmpeg processes write into the results of Assembly `id`.
    private static func encoders(writing id: String) -> Int {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.filter { Int($0) != nil }.filter { pid in
            guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let text = String(decoding: command, as: UTF8.self)
            return text.hasPrefix("ffmpeg") && text.contains("/" + id + "/")
        }.count
    }
}
