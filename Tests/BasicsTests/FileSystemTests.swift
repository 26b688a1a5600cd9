import Basics
import Foundation
import TestSupport
import XCTest

/// State that may not be there yet: missing is nothing, anything else an error naming the path.
final class FileSystemTests: XCTestCase {
    func testAMissingFolderHasNoNamesAndAFileInItsPlaceNeither() throws {
        let directory = try TemporaryDirectory(prefix: "file-system")
        defer { directory.remove() }
        XCTAssertEqual(try FileSystem.names(in: directory.path + "/none"), [])
        let file = try directory.write("plain", "x")
        XCTAssertEqual(try FileSystem.names(in: file), [])
        _ = try directory.write("a b#é", "1")
        XCTAssertEqual(try FileSystem.names(in: directory.path).sorted(), ["a b#é", "plain"])
    }

    func testReadingWhatIsMissingIsNilAndAFolderIsAnError() throws {
        let directory = try TemporaryDirectory(prefix: "file-system")
        defer { directory.remove() }
        XCTAssertNil(try FileSystem.readIfPresent(directory.path + "/none"))
        XCTAssertEqual(try FileSystem.readIfPresent(try directory.write("x", "bytes")), Data("bytes".utf8))
        XCTAssertThrowsError(try FileSystem.readIfPresent(directory.path)) { error in
            XCTAssertEqual((error as? FileError)?.code, EISDIR, "\(error)")
        }
    }

    func testRemovingWhatIsMissingIsNoErrorAndAFolderGoesWhole() throws {
        let directory = try TemporaryDirectory(prefix: "file-system")
        defer { directory.remove() }
        try FileSystem.removeIfPresent(directory.path + "/none")
        _ = try directory.write("folder/inner/file", "x")
        try FileSystem.removeIfPresent(directory.path + "/folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/folder"))
    }
}
