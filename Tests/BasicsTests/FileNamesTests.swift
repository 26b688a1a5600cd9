import Basics
import XCTest

final class FileNamesTests: XCTestCase {
    func testOnlyTheLastSegmentWithoutLeadingDotsOrControlCharactersIsKept() {
        XCTAssertEqual(FileNames.safeComponent("../../etc/passwd"), "passwd")
        XCTAssertEqual(FileNames.safeComponent("..hidden\u{0}\n.txt"), "hidden.txt")
        XCTAssertEqual(FileNames.safeComponent("a\\b"), "ab")
        XCTAssertEqual(FileNames.safeComponent("..."), "file")
        XCTAssertEqual(FileNames.safeComponent(""), "file")
    }

    func testLongNamesAreCutByBytesOnACharacterBoundaryKeepingTheExtension() {
        for unit in ["a", "é", "日", "👩‍👩‍👧"] {
            let name = String(repeating: unit, count: 300) + ".jpeg"
            let safe = FileNames.safeComponent(name)
            XCTAssertLessThanOrEqual(safe.utf8.count, FileNames.maxBytes, unit)
            XCTAssertGreaterThan(safe.utf8.count, FileNames.maxBytes - 30, unit)
            XCTAssertTrue(safe.hasSuffix(".jpeg"), safe)
            XCTAssertTrue(safe.dropLast(5).allSatisfy { String($0) == unit }, "no character is split: \(unit)")
        }
        let noExtension = FileNames.safeComponent(String(repeating: "ü", count: 300))
        XCTAssertEqual(noExtension, String(repeating: "ü", count: 100))
    }
}
