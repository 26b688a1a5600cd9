import Foundation
import Basics
import TestSupport
import XCTest

final class AtomicFileTests: XCTestCase {
    private func contents(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    private func listing(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func testWritesANewFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/out.json"
        try AtomicFile.write(Data("hello\n".utf8), to: path)
        XCTAssertEqual(try contents(path), "hello\n")
        XCTAssertEqual(try listing(directory), ["out.json"])
    }

    func testReplacesAnExistingFileCompletely() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("state.json", "a much longer old content that must not survive")
        try AtomicFile.write(Data("new".utf8), to: path)
        XCTAssertEqual(try contents(path), "new")
        XCTAssertEqual(try listing(directory), ["state.json"])
    }

    func testWritesEmptyData() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("empty", "something")
        try AtomicFile.write(Data(), to: path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data())
        XCTAssertEqual(try listing(directory), ["empty"])
    }

    func testWritesLargeData() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/big.bin"
        let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try AtomicFile.write(data, to: path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data)
    }

    func testMissingFolderNamesThePath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/missing/out.json"
        XCTAssertThrowsError(try AtomicFile.write(Data("x".utf8), to: path)) { error in
            guard let fileError = error as? FileError else { return XCTFail("unexpected error \(error)") }
            XCTAssertEqual(fileError.path, path)
            XCTAssertEqual(fileError.code, ENOENT)
            XCTAssertEqual(fileError.description, "cannot create '\(path)': No such file or directory")
        }
        XCTAssertEqual(try listing(directory), [])
    }
}
