import Basics
import Foundation
import XCTest

/// The folder of a path, as Foundation gives it, and also for one-character paths, where Foundation crashes.
final class FolderPathTests: XCTestCase {
    func testAgreesWithFoundationWhereFoundationWorks() {
        for path in ["ab", "/ab", "ab/cd", "/ab/cd", "ab/cd/", "ab//cd", "//ab", "/", "", "ab/", "./x.yml", "../x.yml", "/a/b/c.yml", "a b/c"] {
            XCTAssertEqual(FolderPath.of(path), (path as NSString).deletingLastPathComponent, "'\(path)'")
        }
    }

    func testOneCharacterPaths() {
        XCTAssertEqual(FolderPath.of("-"), "")
        XCTAssertEqual(FolderPath.of("m"), "")
        XCTAssertEqual(FolderPath.of("a/m"), "a")
        XCTAssertEqual(FolderPath.of("/m"), "/")
        XCTAssertEqual(FolderPath.of("//"), "/", "the root, where Foundation says ''")
    }
}
