import Basics
import Foundation
@testable import Spec
import TestSupport
import XCTest

/// The robot catalog: the data the binary carries, its format, and the checks it drives.
final class RobotCatalogTests: XCTestCase {
    func testTheEmbeddedCatalogIsSchemasRobotsJSON() throws {
        let file = try String(contentsOfFile: PackageRoot.path + "/schemas/robots.json", encoding: .utf8)
        XCTAssertEqual(
            try JSONParser.parse(Data(RobotCatalog.embeddedJSON.utf8)), try JSONParser.parse(Data(file.utf8)),
            "run scripts/robot-catalog/embed.py after changing schemas/robots.json")
        let catalog = try RobotCatalog(json: JSONParser.parse(Data(file.utf8)))
        XCTAssertEqual(catalog.robots.count, RobotCatalog.bundled.robots.count)
        XCTAssertGreaterThan(catalog.robots.count, 80)
        let width = try XCTUnwrap(catalog.robots["/image/resize"]?.parameters["width"])
        XCTAssertEqual(width.types, ["integer"])
        XCTAssertNotNil(catalog.robots["/image/resize"]?.parameters["use"], "shared parameters are merged in")
        for robot in ["/upload/handle", "/file/filter", "/file/hash", "/video/encode", "/audio/encode", "/document/thumbs", "/s3/store"] {
            XCTAssertNotNil(catalog.robots[robot], robot)
        }
    }

    func testTheCatalogFormatIsStrict() {
        let cases: [(String, String)] = [
            (#"{"version": 2, "robots": {}}"#, "version"),
            (#"{"version": 1, "robots": {}, "extra": 1}"#, "unknown key 'extra'"),
            (#"{"version": 1, "robots": {"/a/b": {"summary": "s", "paramters": {}}}}"#, "unknown key 'paramters'"),
            (#"{"version": 1, "robots": {"/a/b": {"parameters": {"x": {"type": ["text"]}}}}}"#, "unknown type 'text'"),
            (#"{"version": 1, "robots": {"/a/b": {"shared": ["nope"], "parameters": {}}}}"#, "unknown shared block 'nope'"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try RobotCatalog(json: JSONParser.parse(Data(text.utf8))), text) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }

    func testParametersAcceptWhatAPolicyAccepts() throws {
        let parameter = RobotCatalog.Parameter(
            types: ["integer"], allowed: nil, minimum: 1, maximum: 5000, defaultValue: nil, nullable: false, suggestions: [], description: nil)
        let cases: [(JSONValue, String?)] = [
            (.int(200), nil), (.string("200"), "must be an integer, found the string '200' (write it without quotes)"), (.double(200), nil),
            (.int(0), "must be at least 1, found 0"), (.int(6000), "must be at most 5000, found 6000"),
            (.string("wide"), "must be an integer, found a string"), (.double(1.5), "must be an integer, found a number"),
            (.null, "must not be null"), (.bool(true), "must be an integer, found a boolean"),
        ]
        for (value, problem) in cases {
            XCTAssertEqual(parameter.problem(with: value), problem, value.serialized())
        }
        let strategy = RobotCatalog.Parameter(
            types: ["string"], allowed: [.string("fit"), .string("pad")], minimum: nil, maximum: nil, defaultValue: nil, nullable: false,
            suggestions: [], description: nil)
        XCTAssertNil(strategy.problem(with: .string("pad")))
        XCTAssertEqual(strategy.problem(with: .string("fitt")), "must be one of 'fit', 'pad', found 'fitt'")
    }

    func testStepsAreCheckedAtTheirLines() {
        let text = """
            version: 1
            assemblies:
              a:
                inputs: [x]
                steps:
                  one: {robot: /image/resise, use: ":original"}
                  two:
                    robot: /image/resize
                    use: ":original"
                    widht: 200
                    width: wide
                    resize_strategy: fitt
                    height: 99999
                    quality: "${fields.quality}"
                    background: "${BACKGROUND}"
                  three: {robot: /file/hash, use: two, algorithm: sha256, result: true}
            """
        let loaded = ManifestLoader(environment: ["BACKGROUND": "#000000"]).decode(Data(text.utf8), file: "m.yml")
        let found = loaded.diagnostics.map { "\($0.id)@\($0.location?.line ?? 0):\($0.location?.column ?? 0)" }
        XCTAssertEqual(found, [
            "manifest.unknown-robot@6:20", "manifest.unknown-parameter@10:9", "manifest.parameter-value@11:16",
            "manifest.parameter-value@12:26", "manifest.parameter-value@13:17",
        ])
        XCTAssertEqual(loaded.diagnostics.first?.hint, "did you mean '/image/resize'?")
        XCTAssertEqual(loaded.diagnostics[1].hint, "did you mean 'width'?")
        XCTAssertEqual(loaded.diagnostics[3].hint, "did you mean 'fit'?")
    }

    func testStepsFromTheServicesDocumentationValidate() {
        let text = """
            version: 1
            assemblies:
              job:
                inputs: ["*.txt"]
                steps:
                  golden: {use: ":original", robot: /image/resize, width: "${file.meta.height * (1 + Math.sqrt(5))/2}", resize_strategy: fillcrop, strip: "true"}
                  filtered: {robot: /file/filter, use: ":original", accepts: "${file.size <= 720}"}
                  marked: {bundle_steps: true, robot: /video/encode, use: {steps: [{name: ":original", fields: the_video, as: video}]}, ffmpeg_stack: v6.0.0}
            """
        let loaded = ManifestLoader(environment: [:]).decode(Data(text.utf8), file: "m.yml")
        XCTAssertEqual(loaded.diagnostics, [])
    }
}
