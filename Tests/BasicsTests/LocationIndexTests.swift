import Basics
import XCTest

final class LocationIndexTests: XCTestCase {
    private func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: "m.yml", line: line, column: column)
    }

    private var index: LocationIndex {
        var index = LocationIndex()
        index.record([], key: nil, value: at(1, 1))
        index.record(["steps"], key: at(2, 1), value: at(3, 3))
        index.record(["steps", "thumb"], key: at(3, 3), value: at(4, 5))
        index.record(["steps", "thumb", "width"], key: at(4, 5), value: at(4, 12))
        index.record(["inputs", "0"], key: nil, value: at(7, 5))
        return index
    }

    func testExactPaths() {
        XCTAssertEqual(index.keyLocation(["steps", "thumb", "width"]), at(4, 5))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "width"]), at(4, 12))
        XCTAssertEqual(index.keyLocation(["steps"]), at(2, 1))
        XCTAssertEqual(index.valueLocation(["steps"]), at(3, 3))
    }

    func testKeyLocationFallsBackToTheValueWhenNoKeyWasRecorded() {
        XCTAssertEqual(index.keyLocation(["inputs", "0"]), at(7, 5))
        XCTAssertEqual(index.keyLocation([]), at(1, 1))
    }

    func testFallsBackToTheNearestRecordedAncestor() {
        XCTAssertEqual(index.keyLocation(["steps", "thumb", "height"]), at(3, 3))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "height"]), at(4, 5))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "width", "deeper"]), at(4, 12))
        // ["inputs"] itself was never recorded: the root is the nearest ancestor.
        XCTAssertEqual(index.keyLocation(["inputs"]), at(1, 1))
        XCTAssertEqual(index.valueLocation(["unknown", "path"]), at(1, 1))
    }

    func testEmptyIndexFindsNothing() {
        let empty = LocationIndex()
        XCTAssertNil(empty.keyLocation(["a", "b"]))
        XCTAssertNil(empty.valueLocation([]))
    }

    func testRecordingAgainReplaces() {
        var index = self.index
        index.record(["steps"], key: at(20, 1), value: at(20, 8))
        XCTAssertEqual(index.keyLocation(["steps"]), at(20, 1))
        XCTAssertEqual(index.valueLocation(["steps"]), at(20, 8))
    }
}
