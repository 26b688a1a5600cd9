import Basics
import Foundation
import TestSupport
import XCTest

/// Manifests over a corpus of real media (`MediaCorpus`), run on the embedded engine as a new
/// user would: every output has the size a person expects, `strip` leaves nothing private, every
/// file lands on its own path, and `plan` names every bad file at once, before anything runs.
final class MediaCorpusTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "media-corpus") }
    override func tearDown() { directory.remove() }

    private func manifest(_ steps: String, inputs: String = #"["photos/**/*", "bad/*"]"#) throws {
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              photos:
                inputs: \(inputs)
                batch: 10
                download: build
                steps:
            \(steps)
            """)
    }

    private func results() throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
    }

    /// What exiftool reads of a file, with `-n` numbers.
    private func exif(_ path: String, _ tags: [String] = []) throws -> JSONValue {
        let json = try MediaTool.output(["exiftool", "-j", "-n"] + tags + [path])
        return try XCTUnwrap(try JSONValue.parse(Data(json.utf8)).arrayValue?.first)
    }

    func testPlanNamesEveryBadFileAtOnceAndIgnoreErrorsLeavesThemOut() async throws {
        try MediaCorpus.writeGood(in: directory.path)
        let bad = try MediaCorpus.writeBad(in: directory.path)
        try manifest("      small: {robot: /image/resize, use: \":original\", width: 30, result: true}")
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertEqual(plan.status, 1, plan.stderr)
        for (path, reason) in bad {
            let lines = plan.stderr.split(separator: "\n").filter { $0.contains("'\(path)'") }
            XCTAssertEqual(lines.count, 1, "one diagnostic for \(path): \(plan.stderr)")
            XCTAssertTrue(lines.first?.contains(reason == "empty" ? "is empty" : "is cut short") == true, String(lines.first ?? ""))
            XCTAssertTrue(lines.first?.contains("pipeline.yml:5:") == true, "located at the input pattern: \(lines.first ?? "")")
        }
        XCTAssertEqual(plan.stderr.components(separatedBy: "error:").count - 1, bad.count, "no good file is named: \(plan.stderr)")

        // With ignore_errors the same files are warnings, and the run completes with the others.
        try manifest("      small: {robot: /image/resize, use: \":original\", width: 30, result: true, ignore_errors: [meta, execute]}")
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr.components(separatedBy: "warning:").count - 1, bad.count, run.stderr)
        let entries = try results()["assemblies"]?.arrayValue ?? []
        XCTAssertTrue(entries.allSatisfy { $0["status"] == .string("ASSEMBLY_COMPLETED") }, "no batch fails for its bad file")
        let leftOut = Set(entries.flatMap { $0["left_out"]?.arrayValue ?? [] }.compactMap { $0["source"]?.stringValue })
        let made = Set(entries.flatMap { $0["results"]?["small"]?.arrayValue ?? [] }.compactMap { $0["source"]?.stringValue })
        XCTAssertTrue(leftOut.contains("bad/empty.jpg"), "the empty file is left out and named: \(leftOut)")
        for path in bad.keys { XCTAssertTrue(leftOut.contains(path) != made.contains(path), "\(path) is either left out or made, not both") }
        XCTAssertTrue(run.stdout.contains("left out"), run.stdout)
        XCTAssertTrue(run.stderr.contains("left out: bad/empty.jpg"), run.stderr)
        let good = Set(entries.flatMap { $0["files"]?.arrayValue ?? [] }.compactMap { $0["path"]?.stringValue }).subtracting(bad.keys)
        XCTAssertEqual(made.intersection(good), good, "every good file has its result")
    }

    func testToolWarningsAreNamedWithTheirFileInTheRunAndTheReportNeverPrintedRaw() async throws {
        try MediaCorpus.writeGood(in: directory.path)
        let damaged = try MediaCorpus.writeDamaged(in: directory.path, names: ["noise 1.jpg", "noise#2.jpg"])
        // Two steps over a batch of good and damaged files, several at once: a warning libvips
        // gives while another file is open is still given to the right one.
        try manifest("""
                  small: {robot: /image/resize, use: ":original", width: 30, result: true}
                  medium: {robot: /image/resize, use: ":original", width: 80, result: true}
            """, inputs: #"["photos/**/*", "damaged/*"]"#)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("VIPS-WARNING"), "libvips' own output reaches no terminal: \(run.stderr)")
        let entries = try results()["assemblies"]?.arrayValue ?? []
        let warnings = entries.flatMap { $0["warnings"]?.arrayValue ?? [] }
        let named = Set(warnings.map { "\($0["source"]?.stringValue ?? "-") \($0["step"]?.stringValue ?? "-")" })
        XCTAssertEqual(named, Set(damaged.flatMap { ["\($0) small", "\($0) medium"] }), "each damaged file, no good one, per step: \(warnings)")
        XCTAssertTrue(warnings.allSatisfy { $0["message"]?.stringValue?.contains("Corrupt JPEG data") == true }, "\(warnings)")
        XCTAssertFalse(warnings.contains { $0["message"]?.stringValue?.contains("/.pipeline/") == true }, "no engine path: \(warnings)")
        XCTAssertTrue(run.stderr.contains("warning: damaged/noise#2.jpg, step 'small': VipsJpeg: Corrupt JPEG data"), run.stderr)
        XCTAssertTrue(run.stdout.contains("\(warnings.count) warnings"), run.stdout)
        let made = Set(entries.flatMap { $0["results"]?["small"]?.arrayValue ?? [] }.compactMap { $0["source"]?.stringValue })
        XCTAssertTrue(Set(damaged).isSubset(of: made), "a damaged file that decodes still has its result")
        let schema = try ProcessRunner.run(try PythonPeers.require("check-jsonschema"), [
            "--schemafile", PackageRoot.path + "/schemas/results.schema.json", directory.path + "/results.json",
        ])
        XCTAssertEqual(schema.status, 0, schema.stdout + schema.stderr)

        // For scripts, each warning is an event naming its file, also when the Assembly is cached.
        let again = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--json"])
        let events = again.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }
        let warned = Set(events.filter { $0["event"] == .string("warning") }.compactMap { $0["source"]?.stringValue })
        XCTAssertEqual(warned, Set(damaged), again.stdout)
        XCTAssertEqual(events.last?["warnings"], .int(warnings.count), again.stdout)

        let report = await CLIHarness.run(["report", directory.path + "/pipeline.yml"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: directory.path + "/report.html", encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<p class=\"note\">warning in step").count - 1, warnings.count, "each warning beside its file")
        XCTAssertTrue(html.contains("Corrupt JPEG data"), "the report says what the tool said")
    }

    func testACorpusRunsOnceWithEveryOutputAsAPersonSeesIt() async throws {
        let seen = try MediaCorpus.writeGood(in: directory.path)
        try manifest("""
                  web: {robot: /image/resize, use: ":original", width: 60, format: webp, strip: true, result: true}
                  kept: {robot: /image/resize, use: ":original", width: 60, format: jpg, result: true}
                  keptweb: {robot: /image/resize, use: ":original", width: 60, format: webp, result: true}
                  keptpng: {robot: /image/resize, use: ":original", width: 60, format: png, result: true}
                  keptavif: {robot: /image/resize, use: ":original", width: 60, format: avif, result: true}
                  kepttiff: {robot: /image/resize, use: ":original", width: 60, format: tiff, result: true}
            """, inputs: #"["photos/**/*"]"#)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("VIPS-WARNING"), run.stderr)
        let entries = try results()["assemblies"]?.arrayValue ?? []
        var places: Set<String> = []
        for step in ["web", "kept", "keptweb", "keptpng", "keptavif", "kepttiff"] {
            let files = entries.flatMap { $0["results"]?[step]?.arrayValue ?? [] }
            XCTAssertEqual(files.count, seen.count, step)
            for file in files {
                let source = try XCTUnwrap(file["source"]?.stringValue)
                let size = try XCTUnwrap(seen[source], source)
                let expected = (60, Int((60.0 * Double(size.height) / Double(size.width)).rounded()))
                let local = try XCTUnwrap(file["local_path"]?.stringValue, source)
                XCTAssertTrue(places.insert(local).inserted, "\(local) is its own path")
                XCTAssertTrue(local.hasPrefix("build/\(step)/"), local)
                let written = try exif(directory.path + "/" + local, ["-ImageWidth", "-ImageHeight", "-Orientation"])
                XCTAssertEqual(written["ImageWidth"]?.intValue, expected.0, "\(step) of \(source)")
                XCTAssertEqual(written["ImageHeight"]?.intValue, expected.1, "\(step) of \(source) as seen")
                XCTAssertEqual(file["meta"]?["width"]?.intValue, expected.0, "meta of \(step) of \(source)")
                XCTAssertEqual(file["meta"]?["height"]?.intValue, expected.1, "meta of \(step) of \(source)")
                XCTAssertTrue(written["Orientation"] == nil || written["Orientation"] == .int(1), "\(step) of \(source) is stored upright")
            }
        }
        // strip keeps nothing private; without it, what is kept is valid for the format.
        let stripped = try exif(directory.path + "/build/web/private.webp", ["-EXIF:all", "-GPS:all", "-Artist", "-XMP:all", "-IPTC:all"])
        XCTAssertEqual(Set(stripped.objectValue?.keys ?? [:].keys), ["SourceFile"], "nothing private, no EXIF at all: \(stripped.serialized())")
        XCTAssertEqual(try exif(directory.path + "/build/web/private.webp", ["-validate"])["Validate"], .string("0 0 0"))
        let source = try exif(directory.path + "/photos/private.jpg", ["-validate", "-warning", "-a"])
        // exiftool -validate -n counts errors, warnings and minor warnings.
        XCTAssertEqual(source["Validate"], .string("0 0 0"), source.serialized())
        for path in ["build/kept/private.jpg", "build/keptweb/private.webp", "build/keptpng/private.png", "build/keptavif/private.avif", "build/kepttiff/private.tiff"] {
            let kept = try exif(directory.path + "/" + path, ["-validate", "-warning", "-a", "-GPSLatitude"])
            // libvips writes no EXIF into a TIFF; the others keep the position.
            if !path.hasSuffix(".tiff") {
                XCTAssertEqual(kept["GPSLatitude"]?.doubleValue ?? 0, 48.8566, accuracy: 0.001, "without strip, the position stays in \(path)")
            }
            XCTAssertEqual(kept["Validate"], .string("0 0 0"), "what is kept is valid for the format: \(kept.serialized())")
        }
        // The same name in two folders, and names with URL syntax and accents, each on their own path.
        for path in ["build/web/2023/01/IMG_1024.webp", "build/web/2024/07/IMG_1024.webp", "build/web/lying.webp"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/" + path), path)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/build/web/names")
        XCTAssertEqual(Set(names.map { Array($0.unicodeScalars) }),
                       Set(MediaCorpus.awkwardNames.map { Array((($0 as NSString).deletingPathExtension + ".webp").unicodeScalars) }))
    }

    func testAPortraitPhoneVideoIsEncodedThumbnailedAndDescribedUpright() async throws {
        try MediaCorpus.writePortraitVideo(directory.path + "/clips/portrait.mp4")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              clips:
                inputs: ["clips/*.mp4"]
                steps:
                  small: {robot: /video/encode, use: ":original", width: 18, result: true}
                  poster: {robot: /video/thumbs, use: ":original", count: 1, format: png, result: true}
            """)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let entry = try XCTUnwrap(try results()["assemblies"]?.arrayValue?.first)
        for step in ["small", "poster"] {
            let file = try XCTUnwrap(entry["results"]?[step]?.arrayValue?.first, step)
            let path = try XCTUnwrap(ResultURLs.path(try XCTUnwrap(file["url"]?.stringValue), resultsFolder: directory.path))
            let probe = try MediaTool.output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation", "-of", "json", path])
            let stream = try XCTUnwrap(try JSONValue.parse(Data(probe.utf8))["streams"]?.arrayValue?.first)
            let (width, height) = (try XCTUnwrap(stream["width"]?.intValue), try XCTUnwrap(stream["height"]?.intValue))
            XCTAssertLessThan(width, height, "\(step) is portrait as stored: \(probe)")
            XCTAssertEqual(file["meta"]?["width"]?.intValue, width, step)
            XCTAssertEqual(file["meta"]?["height"]?.intValue, height, step)
        }
        XCTAssertEqual(entry["results"]?["small"]?.arrayValue?.first?["meta"]?["width"]?.intValue, 18, "the width asked for, of the upright picture")
    }
}
