import Foundation
import Basics
import TestSupport
import XCTest

final class FileReadingTests: XCTestCase {
    func testReadsTheWholeFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("m.yml", "version: 1\n")
        XCTAssertEqual(try FileReading.read(path), Data("version: 1\n".utf8))
    }

    func testReadsAnEmptyFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("empty.yml", "")
        XCTAssertEqual(try FileReading.read(path), Data())
    }

    func testFileAtTheLimitIsRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("ten", "0123456789")
        XCTAssertEqual(try FileReading.read(path, limit: 10).count, 10)
    }

    func testFileOverTheLimitIsAnError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("ten", "0123456789")
        XCTAssertThrowsError(try FileReading.read(path, limit: 9)) { error in
            guard let fileError = error as? FileError else { return XCTFail("unexpected error \(error)") }
            XCTAssertEqual(fileError.path, path)
            XCTAssertEqual(fileError.operation, "read")
            XCTAssertEqual(fileError.code, EFBIG)
            XCTAssertTrue(fileError.description.hasPrefix("cannot read '\(path)': "), fileError.description)
        }
    }

    func testDirectoryIsAnError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.makeDirectory("folder.yml")
        let path = directory.path + "/folder.yml"
        XCTAssertThrowsError(try FileReading.read(path)) { error in
            guard let fileError = error as? FileError else { return XCTFail("unexpected error \(error)") }
            XCTAssertEqual(fileError.code, EISDIR)
            XCTAssertEqual(fileError.description, "cannot read '\(path)': Is a directory")
        }
    }

    func testMissingFileNamesThePath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/nope.yml"
        XCTAssertThrowsError(try FileReading.read(path)) { error in
            guard let fileError = error as? FileError else { return XCTFail("unexpected error \(error)") }
            XCTAssertEqual(fileError.path, path)
            XCTAssertEqual(fileError.code, ENOENT)
            XCTAssertEqual(fileError.description, "cannot open '\(path)': No such file or directory")
        }
    }
}
