import Foundation
import TestSupport
import XCTest

/// `pipeline report` keeps its previews by content: a second report of an unchanged run runs no
/// ffmpeg and writes the same page; a new file gets its preview alone; a file no results name
/// any more loses its preview. ffmpeg is counted by a script put first on PATH that logs each call.
final class ReportPreviewCacheTests: XCTestCase {
    func testASecondReportMakesNoPreviewAndANewFileOnlyItsOwn() throws {
        guard let ffmpeg = Self.executable("ffmpeg") else { throw XCTSkip("ffmpeg is not installed (scripts/setup.sh installs it)") }
        let directory = try TemporaryDirectory(prefix: "report-previews")
        defer { directory.remove() }
        try directory.write("bin/ffmpeg", "#!/bin/sh\necho \"$*\" >> '\(directory.path)/ffmpeg.log'\nexec '\(ffmpeg)' \"$@\"\n")
        chmod(directory.path + "/bin/ffmpeg", 0o755)
        let environment = ["PATH": directory.path + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        try FileManager.default.createDirectory(atPath: directory.path + "/media", withIntermediateDirectories: true)
        try Self.make(ffmpeg, ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "1", "-pix_fmt", "yuv420p", directory.path + "/media/clip.mp4"])
        try Self.make(ffmpeg, ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", directory.path + "/media/tone.wav"])
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              media:
                inputs: ["media/*"]
                steps:
                  hash: {robot: /file/hash, use: ":original", result: true}
            """)
        func pipeline(_ arguments: [String]) throws -> ProcessResult {
            let result = try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments, in: directory.path, environment: environment)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result
        }
        func calls() -> Int {
            defer { unlink(directory.path + "/ffmpeg.log") }
            return ((try? String(contentsOfFile: directory.path + "/ffmpeg.log", encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        let page = directory.path + "/report.html"
        let previews = directory.path + "/.pipeline/manifests/pipeline/previews"
        func kept() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: previews)) ?? []).filter { $0.hasSuffix(".jpg") }.count }

        _ = try pipeline(["run", "pipeline.yml"])
        _ = calls()
        _ = try pipeline(["report", "pipeline.yml"])
        XCTAssertEqual(calls(), 2, "a frame of the video and the waveform of the sound")
        let first = try Data(contentsOf: URL(fileURLWithPath: page))
        _ = try pipeline(["report", "pipeline.yml"])
        XCTAssertEqual(calls(), 0, "nothing changed: every preview is read back")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: page)), first, "the same page")
        XCTAssertEqual(kept(), 2)

        // A new video: its preview alone is made. The sound gone from the results: its preview goes.
        try Self.make(ffmpeg, ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "1", "-pix_fmt", "yuv420p", directory.path + "/media/other.mp4"])
        try FileManager.default.removeItem(atPath: directory.path + "/media/tone.wav")
        _ = try pipeline(["run", "pipeline.yml"])
        _ = calls()
        _ = try pipeline(["report", "pipeline.yml"])
        XCTAssertEqual(calls(), 1, "only the new video's frame")
        XCTAssertEqual(kept(), 2, "the clip's and the new video's, not the sound's")
    }

    /// Writes a media file with ffmpeg (called directly, not through the counting script).
    private static func make(_ ffmpeg: String, _ arguments: [String]) throws {
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y"] + arguments)
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// The first executable `name` on PATH.
    private static func executable(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
