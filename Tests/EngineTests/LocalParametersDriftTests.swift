@testable import Engine
import Foundation
import Spec
import TestSupport
import XCTest

/// The catalog's record of what the local engine implements (`RobotCatalog.localParameters`) is
/// the options the engine's robots really read: read from their source, so neither can drift.
final class LocalParametersDriftTests: XCTestCase {
    /// Each local robot's source files.
    private let sources: [String: [String]] = [
        "/image/resize": ["ImageResizeRobot.swift", "Watermark.swift"],
        "/image/optimize": ["ImageOptimizeRobot.swift"],
        "/file/filter": ["FileFilterRobot.swift"],
        "/file/hash": ["FileHashRobot.swift"],
        "/file/compress": ["Archives/FileCompressRobot.swift"],
        "/file/decompress": ["Archives/FileDecompressRobot.swift"],
        "/document/thumbs": ["DocumentThumbsRobot.swift"],
        "/video/encode": ["Media/VideoEncodeRobot.swift", "Media/VideoGeometry.swift"],
        "/video/thumbs": ["Media/VideoThumbsRobot.swift", "Media/VideoGeometry.swift"],
        "/audio/encode": ["Media/AudioEncodeRobot.swift"],
        "/audio/waveform": ["Media/AudioWaveformRobot.swift"],
        "/http/import": ["Import/HTTPImportRobot.swift"],
        "/meta/write": ["MetaWriteRobot.swift"],
        "/upload/handle": [],
    ]

    /// The option keys a source file reads: `options["key"]`, or a `StepOptions` reader's `.integer("key"` and the like.
    private func keysRead(in file: String) throws -> Set<String> {
        let text = try String(contentsOfFile: PackageRoot.path + "/Sources/Engine/" + file, encoding: .utf8)
        var keys: Set<String> = []
        for match in text.matches(of: /options\["([a-z_0-9]+)"\]/) { keys.insert(String(match.1)) }
        for match in text.matches(of: /(?:strict|reader|\))\.(?:integer|string|bool|strings|choice)\("([a-z_0-9]+)"/) { keys.insert(String(match.1)) }
        return keys
    }

    func testTheRecordIsWhatTheEngineReads() throws {
        for (robot, files) in sources {
            let read = try files.reduce(into: Set<String>()) { $0.formUnion(try keysRead(in: $1)) }
            XCTAssertEqual(RobotCatalog.localParameters[robot], read, "\(robot): the record and the engine's code disagree")
        }
        let exports = try keysRead(in: "ExportRobot.swift")
        for robot in RobotCatalog.localExports {
            XCTAssertEqual(RobotCatalog.localParameters[robot], exports, robot)
        }
        XCTAssertEqual(Set(RobotCatalog.localParameters.keys), RobotCatalog.local, "every robot the engine runs has a record")
    }

    /// The catalog's list of local robots is the engine's dispatch: each one listed is run (it may
    /// refuse its empty options, never as a robot it lacks), and one not listed is refused as such.
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
}
