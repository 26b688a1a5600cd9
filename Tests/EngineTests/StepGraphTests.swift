import Basics
@testable import Engine
import XCTest

/// Steps run in waves: a step comes after every step it uses, and steps that do not use each
/// other share a wave, so they run at once.
final class StepGraphTests: XCTestCase {
    func testStepsThatDoNotUseEachOtherShareAWave() throws {
        func step(_ robot: String, _ use: JSONValue) -> JSONValue { .object(["robot": .string(robot), "use": use]) }
        let graph = try XCTUnwrap(StepGraph(.object([
            "thumb": step("/image/resize", .string(":original")),
            "hash": step("/file/hash", .string(":original")),
            "small": step("/image/resize", .string("thumb")),
            "both": step("/file/compress", .array([.string("small"), .string("hash")])),
        ])))
        XCTAssertEqual(graph.waves.map { Set($0.map(\.name)) }, [["thumb", "hash"], ["small"], ["both"]])
    }

    func testImportStepsUseNothingUnlessTheyNameSteps() throws {
        let graph = try XCTUnwrap(StepGraph(.object([
            "imported": .object(["robot": .string("/http/import"), "url": .string("https://example.com/a.png")]),
            "resized": .object(["robot": .string("/image/resize")]),
            "chained": .object(["robot": .string("/http/import"), "use": .string("resized")]),
        ])))
        let uses = Dictionary(uniqueKeysWithValues: graph.ordered.map { ($0.name, $0.uses) })
        XCTAssertEqual(uses, ["imported": [], "resized": [":original"], "chained": ["resized"]])
    }
}
