@testable import Engine
import Basics
import Foundation
import Spec
import XCTest

/// Every value the catalog says the local engine runs (`RobotCatalog.localValues`, which
/// `validate` checks) is one its robots take, and a misspelt one is refused with a did-you-mean:
/// the two read one list.
final class LocalValuesTests: XCTestCase {
    /// Runs a step of `robot` with `options` over no files, as the engine runs steps: its options
    /// are read (and refused) before any file is.
    private func build(_ robot: String, _ options: [String: JSONValue]) throws(RobotError) {
        let step = StepGraph.Step(name: "s", robot: robot, options: options.merging(["robot": .string(robot)]) { $1 }, uses: [])
        let context = RobotContext(step: step, folder: NSTemporaryDirectory(), fields: [:], assembly: "a", exports: NSTemporaryDirectory(), limits: RobotLimits())
        _ = try Robots.run(context, on: [])
    }

    func testEveryListedValueRunsAndAMisspeltOneIsRefusedWithAHint() throws {
        for (robot, options) in RobotCatalog.localValues {
            for (option, values) in options {
                // The watermark's strategy is read only with a watermark.
                let base: [String: JSONValue] = option.hasPrefix("watermark_") ? ["watermark_url": .string("https://127.0.0.1/w.png")] : [:]
                for value in values {
                    var step = base
                    step[option] = .string(value)
                    // A GIF from /video/encode takes no preset, and the other way round.
                    if robot == "/video/encode", option == "preset" { step["format"] = nil }
                    XCTAssertNoThrow(try build(robot, step), "\(robot) \(option): \(value)")
                }
                var wrong = base
                wrong[option] = .string(String(values[0].reversed()) + "x")
                XCTAssertThrowsError(try build(robot, wrong), "\(robot) \(option)") { error in
                    XCTAssertTrue((error as? RobotError)?.message.contains("it runs") == true, "\(error)")
                }
            }
        }
    }

    func testTheEnginesOwnTablesAreTheList() {
        XCTAssertEqual(Set(VideoEncodeRobot.presets.keys), Set(RobotCatalog.localValues["/video/encode"]?["preset"] ?? []))
        XCTAssertEqual(Set(AudioEncodeRobot.presets.keys), Set(RobotCatalog.localValues["/audio/encode"]?["preset"] ?? []))
        XCTAssertEqual(Set(ResizeStrategy.allCases.map(\.rawValue)), Set(RobotCatalog.localValues["/image/resize"]?["resize_strategy"] ?? []))
        XCTAssertEqual(Set(Gravity.allCases.map(\.rawValue)), Set(RobotCatalog.localValues["/image/resize"]?["gravity"] ?? []))
    }

    func testAMisspeltFormatIsNamedWithTheOneMeant() {
        let problem = RobotCatalog.localValueProblem(robot: "/image/resize", option: "format", value: .string("wepb"))
        XCTAssertEqual(problem?.message, "the local engine's /image/resize does not run format 'wepb'")
        XCTAssertTrue(problem?.hint.hasPrefix("did you mean 'webp'? it runs avif, gif") == true, problem?.hint ?? "")
        XCTAssertNil(RobotCatalog.localValueProblem(robot: "/image/resize", option: "format", value: .string("WEBP")), "formats are read in any case")
        XCTAssertNil(RobotCatalog.localValueProblem(robot: "/image/resize", option: "format", value: .string("${fields.format}")), "a field is known only at run time")
    }
}
