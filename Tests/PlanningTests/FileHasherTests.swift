import Basics
import Crypto
import Foundation
@testable import Planning
import TestSupport
import XCTest

final class FileHasherTests: XCTestCase {
    func testKnownVectors() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        let cases: [(String, String, UInt)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", #line),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", #line),
            ("The quick brown fox jumps over the lazy dog", "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592", #line),
        ]
        for (index, (text, sha256, line)) in cases.enumerated() {
            let path = try tree.write("file\(index)", text)
            let digest = try FileHasher.digest(path: path)
            XCTAssertEqual(digest.size, Int64(text.utf8.count), line: line)
            XCTAssertEqual(digest.sha256, sha256, line: line)
            var info = stat()
            stat(path, &info)
            XCTAssertEqual(digest.modified, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec), "the time of the hashed version", line: line)
        }
    }

    func testFileLargerThanOneBlock() throws {
        let sha256sum = "/usr/bin/sha256sum"
        guard FileManager.default.isExecutableFile(atPath: sha256sum) else { throw XCTSkip("no \(sha256sum)") }
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        let count = 3 * FileHasher.blockSize + 17
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let path = try tree.write("large.bin", data: Data(bytes))

        let digest = try FileHasher.digest(path: path)
        XCTAssertEqual(digest.size, Int64(count))
        XCTAssertEqual(digest.sha256, String(try run(sha256sum, [path]).prefix(64)))
    }

    func testManyFilesKeepTheirOrder() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        // File i holds i bytes, so a result in the wrong slot shows in its size.
        let paths = try (0..<500).map { index in
            try tree.write("f\(index)", String(repeating: "x", count: index))
        }
        let results = FileHasher.digests(paths: paths, workers: 2)
        XCTAssertEqual(results.count, 500)
        for (index, result) in results.enumerated() {
            let digest = try result.get()
            XCTAssertEqual(digest.size, Int64(index))
            XCTAssertEqual(digest, try FileHasher.digest(path: paths[index]))
        }
    }

    func testMissingFileIsAFailureNamingThePath() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        let first = try tree.write("a.txt", "abc")
        let missing = tree.path + "/missing.txt"
        let last = try tree.write("b.txt", "")
        let results = FileHasher.digests(paths: [first, missing, last], workers: 2)
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(try results[0].get().sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(try results[2].get().size, 0)
        guard case .failure(let error) = results[1] else { return XCTFail("expected a failure, got \(results[1])") }
        XCTAssertEqual(error, HashingError(path: missing, code: ENOENT))
        XCTAssertEqual(error.description, "cannot read '\(missing)': No such file or directory")
    }

    func testDigestOfMissingFileThrows() {
        XCTAssertThrowsError(try FileHasher.digest(path: "/nonexistent/file")) { error in
            XCTAssertEqual((error as? HashingError)?.path, "/nonexistent/file")
            XCTAssertEqual((error as? HashingError)?.code, ENOENT)
        }
    }

    func testFolderIsNotAFile() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        XCTAssertThrowsError(try FileHasher.digest(path: tree.path)) { error in
            XCTAssertEqual((error as? HashingError)?.code, EISDIR)
        }
    }

    func testNoPaths() {
        XCTAssertTrue(FileHasher.digests(paths: [], workers: 4).isEmpty)
    }

    func testHex() {
        XCTAssertEqual(Hex.encode([0x00, 0x0f, 0xa5, 0xff]), "000fa5ff")
        XCTAssertEqual(Hex.encode([UInt8]()), "")
    }

    private func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self)
    }
}
