import Basics
@testable import Client
import Foundation
import TestSupport
import XCTest

/// A download's MD5 is remembered with the file's identity, and only trusted while the file is as it was.
final class DownloadDigestsTests: XCTestCase {
    func testAnMD5IsKnownWhileTheFileIsAsItWasAndKeptRelativeToTheProject() throws {
        let project = try TemporaryDirectory(prefix: "digests")
        defer { project.remove() }
        let path = try project.write("build/a.png", "bytes")
        // Written an hour ago, as far as its modification time says: a write now shows, however coarse the file system's clock.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
        let state = project.path + "/.pipeline/download-digests.json"
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let digests = DownloadDigests(file: state, trusted: project.path)
        XCTAssertNil(digests.md5(of: path, info: info))
        digests.record(path, info: info, md5: "0123456789abcdef0123456789abcdef")
        digests.save()
        let saved = try String(contentsOfFile: state, encoding: .utf8)
        XCTAssertTrue(saved.contains("\"build/a.png\""), saved)
        XCTAssertFalse(saved.contains(project.path), "no absolute path: \(saved)")

        // Another run reads it back; a file written since is read again.
        let again = DownloadDigests(file: state, trusted: project.path)
        XCTAssertEqual(again.md5(of: path, info: info), "0123456789abcdef0123456789abcdef")
        try "other".write(toFile: path, atomically: false, encoding: .utf8)
        var changed = stat()
        XCTAssertEqual(stat(path, &changed), 0)
        XCTAssertNil(again.md5(of: path, info: changed))

        // Bytes changed in place with the modification time put back: the change time still tells.
        again.record(path, info: changed, md5: "fedcba9876543210fedcba9876543210")
        // Written again until the change time moves on (the file system's clock ticks coarsely).
        var restored = changed
        for _ in 0..<100_000 where restored.st_ctim.tv_sec == changed.st_ctim.tv_sec && restored.st_ctim.tv_nsec == changed.st_ctim.tv_nsec {
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data("X".utf8))
            try handle.close()
            var times = [changed.st_atim, changed.st_mtim]
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
            XCTAssertEqual(stat(path, &restored), 0)
        }
        XCTAssertEqual(restored.st_mtim.tv_nsec, changed.st_mtim.tv_nsec)
        XCTAssertNil(again.md5(of: path, info: restored), "a file written since is read again")
    }

    func testTwinsWhoseNamesDifferOnlyByNormalizationAreTwoRecords() throws {
        let project = try TemporaryDirectory(prefix: "digests-twins")
        defer { project.remove() }
        let composed = try project.write("build/Cr\u{E8}me.png", "composed")
        let decomposed = try project.write("build/Cre\u{300}me.png", "decomposed")
        let state = project.path + "/.pipeline/download-digests.json"
        var first = stat(), second = stat()
        XCTAssertEqual(stat(composed, &first), 0)
        XCTAssertEqual(stat(decomposed, &second), 0)
        let digests = DownloadDigests(file: state, trusted: project.path)
        digests.record(composed, info: first, md5: String(repeating: "1", count: 32))
        digests.record(decomposed, info: second, md5: String(repeating: "2", count: 32))
        digests.save()
        let again = DownloadDigests(file: state, trusted: project.path)
        XCTAssertEqual(again.md5(of: composed, info: first), String(repeating: "1", count: 32))
        XCTAssertEqual(again.md5(of: decomposed, info: second), String(repeating: "2", count: 32))
    }

    func testAFileOlderVersionsWroteIsStillRead() throws {
        let project = try TemporaryDirectory(prefix: "digests-older")
        defer { project.remove() }
        let path = try project.write("build/a.png", "bytes")
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let record = "{\"changed\": \(FileTime.nanoseconds(info.st_ctim)), \"inode\": \(info.st_ino), \"md5\": \"\(String(repeating: "3", count: 32))\", "
            + "\"modified\": \(FileTime.nanoseconds(info.st_mtim)), \"size\": \(info.st_size)}"
        let state = try project.write(".pipeline/download-digests.json", "{\"build/a.png\": \(record)}")
        XCTAssertEqual(DownloadDigests(file: state, trusted: project.path).md5(of: path, info: info), String(repeating: "3", count: 32))
    }
}
