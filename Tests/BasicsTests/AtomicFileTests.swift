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

    /// A file restored with hostile permissions (set-id, world-writable) is replaced by one with a
    /// new file's; a private one stays private. Every way of writing holds it.
    func testAReplacedFileNeverKeepsPermissionsANewFileWouldNotHave() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writes: [(String) throws -> Void] = [
            { try AtomicFile.write(Data("new".utf8), to: $0) },
            { try AtomicFile.write(Data("new".utf8), to: $0, below: directory.path) },
            { try AtomicFile.update($0) { emit in emit(Data("new".utf8)) } },
            { try AtomicFile.update($0) { emit in emit(Data("old".utf8)) } },  // unchanged bytes
        ]
        for (index, write) in writes.enumerated() {
            for (before, after) in [(0o4777, 0o644), (0o2666, 0o644), (0o600, 0o600), (0o640, 0o640)] as [(mode_t, mode_t)] {
                let path = try directory.write("state-\(index).json", "old")
                chmod(path, before)
                try write(path)
                var info = stat()
                XCTAssertEqual(stat(path, &info), 0)
                XCTAssertEqual(info.st_mode & 0o7777, after & ~currentUmask, "write \(index) over mode \(String(before, radix: 8))")
            }
        }
    }

    private var currentUmask: mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}
