@testable import Engine
import Foundation
import Spec
import TestSupport
import XCTest

/// Every robot the registry declares has its implementation in the engine, and the engine's
/// dispatch is the registry: each declared robot runs, and one not declared is refused as such.
final class LocalRobotRegistryTests: XCTestCase {
    func testEveryDeclaredRobotHasALocalImplementation() {
        for declaration in RobotRegistry.declarations {
            XCTAssertNotNil(declaration as? any LocalRobot.Type, "\(declaration.names.first ?? "\(declaration)") is declared but has no LocalRobot conformance")
        }
    }

    func testTheCatalogsLocalRobotsAreTheOnesTheEngineRuns() throws {
        let folder = try TemporaryDirectory(prefix: "robots-dispatch")
        defer { folder.remove() }
        func outcome(_ robot: String) -> String {
            let step = StepGraph.Step(name: "s", robot: robot, options: ["robot": .string(robot)], uses: [])
            let context = RobotContext(step: step, folder: folder.path, fields: [:], assembly: "a", exports: folder.path + "/exports", limits: RobotLimits())
            do throws(RobotError) { _ = try Robots.run(context, on: []); return "ran" } catch { return error.message }
        }
        for robot in RobotCatalog.local.sorted() {
            XCTAssertFalse(outcome(robot).contains("does not run locally"), robot)
        }
        XCTAssertTrue(outcome("/image/describe").contains("does not run locally"))
    }

    /// A wrong option fails the step as INVALID_STEP_PARAMETER, naming the option, before any file is read.
    func testAnOptionTheEngineCannotRunIsRefusedNamingIt() {
        let step = StepGraph.Step(name: "s", robot: "/image/resize", options: ["robot": .string("/image/resize"), "height": .string("tall")], uses: [])
        let context = RobotContext(step: step, folder: NSTemporaryDirectory(), fields: [:], assembly: "a", exports: NSTemporaryDirectory(), limits: RobotLimits())
        do throws(RobotError) {
            _ = try Robots.run(context, on: [])
            XCTFail("ran")
        } catch {
            XCTAssertEqual(error.code, .invalidStepParameter)
            XCTAssertEqual(error.message, "'height' must be a whole number from 1 to 20000, not 'tall'")
        }
    }
}
