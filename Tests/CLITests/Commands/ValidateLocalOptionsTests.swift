import Foundation
import Basics
import TestSupport
import XCTest

/// With the local engine, `validate` and `plan` decode each step's options through its robot's
/// declaration, as the engine does when it runs the step: what it would refuse is refused before
/// anything runs, at the value, with a hint; what is known only at run time is left alone.
final class ValidateLocalOptionsTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "validate-options")
    }

    override func tearDown() { directory.remove() }

    /// A local manifest of one job whose step `thumb` is `step` (one YAML line per option).
    private func validate(_ step: String, endpoint: String = "local", command: String = "validate") async throws -> (status: Int32, stderr: String) {
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: \(endpoint)
            assemblies:
              thumbs:
                inputs: ["*.png"]
                allow_empty: true
                steps:
                  thumb:
            \(step.split(separator: "\n").map { "          " + $0 }.joined(separator: "\n"))
            """)
        let result = await CLIHarness.run([command, directory.path + "/pipeline.yml"])
        return (result.status, result.stderr)
    }

    func testANumberOutOfTheEnginesRangeIsRefusedAtItsValue() async throws {
        // The service takes heights up to 25000; the local engine up to 20000.
        let step = "robot: /image/resize\nuse: \":original\"\nwidth: 100\nheight: 25000"
        let result = try await validate(step)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(
            "pipeline.yml:12:19: error: the local engine's /image/resize refuses step 'thumb': 'height' must be a whole number from 1 to 20000, not 25000"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint: the local engine checks each option when it runs the step; change the value"), result.stderr)
        XCTAssertTrue(result.stderr.contains("[manifest.refused-locally]"), result.stderr)
        // `plan` refuses it as well; another endpoint takes it (the service runs it).
        let plan = try await validate(step, command: "plan")
        XCTAssertTrue(plan.status == 1 && plan.stderr.contains("'height' must be a whole number from 1 to 20000"), plan.stderr)
        let remote = try await validate(step, endpoint: "https://api.example.com")
        XCTAssertFalse(remote.stderr.contains("refused-locally"), remote.stderr)
    }

    func testAValueOfAnotherTypeIsRefusedAtItsValue() async throws {
        // The catalog takes the text "true" for a boolean; the local engine takes only true.
        let result = try await validate("robot: /image/resize\nuse: \":original\"\nwidth: 100\nstrip: \"true\"")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(
            "pipeline.yml:12:18: error: the local engine's /image/resize refuses step 'thumb': 'strip' must be true or false, not 'true'"), result.stderr)
    }

    func testValuesTheRobotCannotRunAreEachRefusedAtTheirLines() async throws {
        let result = try await validate(
            "robot: /image/resize\nuse: \":original\"\nwidth: 100\nrotation: 45\ncrop: {x1: 10, y1: 10, x2: 5, y2: 20}\nwatermark_url: https://example.com/m.png\nwatermark_size: \"200%\"")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:12:21: error: the local engine's /image/resize refuses step 'thumb': rotation 45 does not run locally"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:13:17: error: the local engine's /image/resize refuses step 'thumb': 'crop' must be {x1, y1, x2, y2}"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:15:27: error: the local engine's /image/resize refuses step 'thumb': watermark_size must be a percentage"), result.stderr)
        XCTAssertTrue(result.stderr.contains("3 errors"), result.stderr)
    }

    func testAnOptionTheRobotNeedsIsRefusedAtTheStepUnlessATemplateMayGiveIt() async throws {
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            templates:
              site-imports:
                steps:
                  fetch: {robot: /http/import, url: "https://example.com/a.png"}
            assemblies:
              plain:
                inputs: ["*.png"]
                allow_empty: true
                steps:
                  fetch: {robot: /http/import}
              remote:
                inputs: ["*.png"]
                allow_empty: true
                template_id: 0123abcd
                steps:
                  fetch: {robot: /http/import}
              own:
                inputs: ["*.png"]
                allow_empty: true
                template: site-imports
                steps:
                  fetch: {robot: /http/import, force_name: a.png}
            """)
        let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:12:7: error: the local engine's /http/import refuses step 'fetch': 'url' must give the URL to import"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint: give 'url' in the step, or use another endpoint for this job"), result.stderr)
        // The job on a Template this manifest does not hold, and the one whose own Template gives the URL, are not refused.
        XCTAssertTrue(result.stderr.contains("1 error"), result.stderr)
    }

    func testAStepOfATemplateIsCheckedWhereItIsWritten() async throws {
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            templates:
              site-thumbs:
                steps:
                  small: {robot: /image/resize, use: ":original", width: 64, height: 20001}
            assemblies:
              thumbs:
                inputs: ["*.png"]
                allow_empty: true
                template: site-thumbs
                steps:
                  small: {robot: /image/resize, width: 20002}
            """)
        let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:6:74: error: the local engine's /image/resize refuses step 'small': 'height' must be a whole number from 1 to 20000, not 20001"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yml:13:44: error: the local engine's /image/resize refuses step 'small': 'width' must be a whole number from 1 to 20000, not 20002"), result.stderr)
        XCTAssertTrue(result.stderr.contains("2 errors"), "the Template's height is said once, where it is written: \(result.stderr)")
    }

    /// Values known only at run time are not judged, a value another check refuses is said once,
    /// and a manifest whose every step the engine runs as written still validates.
    func testAValidManifestStillPassesAndRunTimeValuesAreLeftAlone() async throws {
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              images:
                inputs: ["*.png"]
                allow_empty: true
                fields: {width: 320}
                steps:
                  thumb:
                    robot: /image/resize
                    use: ":original"
                    width: ${fields.width}
                    height: 20000
                    crop: {x1: 0, y1: 0, x2: 100, y2: 80}
                    rotation: 90
                    strip: true
                    format: webp
                    watermark_url: https://example.com/mark.png
                    watermark_size: "25%"
                    watermark_opacity: 0.5
                    ignore_errors: [meta, execute]
                  small: {robot: /image/optimize, use: thumb}
                  sums: {robot: /file/hash, use: ":original", algorithm: sha256}
                  big: {robot: /file/filter, use: ":original", accepts: [["${file.size}", ">", "1000"]]}
                  meta: {robot: /meta/write, use: ":original", data_to_write: {Copyright: "© Example"}}
              videos:
                inputs: ["*.mp4"]
                allow_empty: true
                steps:
                  clip: {robot: /video/encode, use: ":original", preset: ipad-high}
                  stills: {robot: /video/thumbs, use: ":original", count: 3}
              fetched:
                inputs: ["*.png"]
                allow_empty: true
                steps:
                  fetch: {robot: /http/import, url: "https://example.com/a.png"}
            """)
        let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("refused-locally"), result.stderr)
        // A value the catalog refuses (the service would too) is said by the catalog alone.
        let catalog = try await validate("robot: /image/resize\nuse: \":original\"\nwidth: -5")
        XCTAssertTrue(catalog.stderr.contains("'width' of step 'thumb' must be at least 1, found -5"), catalog.stderr)
        XCTAssertFalse(catalog.stderr.contains("refused-locally"), catalog.stderr)
    }
}
