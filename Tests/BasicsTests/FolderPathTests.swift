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

/// Paths as seen from a folder.
final class RelativePathTests: XCTestCase {
    func testRelativePaths() {
        XCTAssertEqual(RealPath.relative("/p/a.yml", from: "/p"), "a.yml")
        XCTAssertEqual(RealPath.relative("/p/x/pipeline.yml", from: "/p/shared"), "../x/pipeline.yml")
        XCTAssertEqual(RealPath.relative("/p/x/y/m.yml", from: "/p/x"), "y/m.yml")
        XCTAssertEqual(RealPath.relative("/m.yml", from: "/a/b"), "../../m.yml")
        XCTAssertEqual(RealPath.relative("/a/b", from: "/a/b"), ".")
        XCTAssertEqual(RealPath.relative("/a/./b//c/../m.yml", from: "/a/b/"), "m.yml")
    }

    func testAFolderWhoseNameDiffersOnlyByNormalizationIsAnotherFolder() {
        let composed = "/p/Cr\u{E8}me", decomposed = "/p/Cre\u{300}me"
        XCTAssertTrue(RealPath.isInside(composed + "/a.jpg", composed))
        XCTAssertFalse(RealPath.isInside(decomposed + "/a.jpg", composed))
        XCTAssertFalse(RealPath.isInside(decomposed, composed))
        XCTAssertEqual(RealPath.relative(decomposed + "/a.jpg", from: composed).utf8.elementsEqual("../Cre\u{300}me/a.jpg".utf8), true)
        XCTAssertNil(RealPath.relative(decomposed + "/a.jpg", inside: composed))
    }
}
