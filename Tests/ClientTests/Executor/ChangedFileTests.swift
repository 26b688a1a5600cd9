import Basics
@testable import Client
import Crypto
import Foundation
import Planning
import TestSupport
import XCTest

/// A file rewritten between plan and upload is never sent under the planned SHA-256, however it
/// was rewritten; a file whose status alone changed (a mode, a link) is still the planned one.
final class ChangedFileTests: XCTestCase {
    private func planned(_ path: String, relative: String) throws -> PlannedFile {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let digest = try FileHasher.digest(path: path)
        return PlannedFile(
            path: relative, size: digest.size, digest: digest.digest, modified: FileTime.nanoseconds(info.st_mtim),
            status: (UInt64(info.st_ino), FileTime.nanoseconds(info.st_ctim)))
    }

    /// Sets the file's modification time back to `info`'s.
    private func setTimeBack(_ path: String, to info: stat) {
        var times = [info.st_atim, info.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    }

    /// Does `change` until the file's change time is no longer `file`'s (the kernel's clock for it
    /// moves in ticks of a few milliseconds).
    private func repeatUntilTheChangeTimeMoves(_ path: String, from file: PlannedFile, _ change: () throws -> Void) rethrows {
        var info = stat()
        for _ in 0..<100_000 {
            try change()
            stat(path, &info)
            if FileTime.nanoseconds(info.st_ctim) != file.status?.changed { return }
        }
        XCTFail("the change time of \(path) never moved")
    }

    func testASameSizeRewriteWithItsTimeSetBackIsAChange() throws {
        let directory = try TemporaryDirectory(prefix: "changed-file")
        defer { directory.remove() }
        let path = try directory.write("photo.jpg", "the planned bytes")
        let file = try planned(path, relative: "photo.jpg")
        var before = stat()
        stat(path, &before)
        try repeatUntilTheChangeTimeMoves(path, from: file) {
            try Data("other same-size!!".utf8).write(to: URL(fileURLWithPath: path))
            setTimeBack(path, to: before)
        }
        XCTAssertThrowsError(try ChangedFile.check(path, planned: file, project: directory.path)) { error in
            XCTAssertTrue("\(error)".contains("its content is no longer the one hashed"), "\(error)")
        }
    }

    func testAChangedModeOrANewLinkWithTheSameBytesIsNoChange() throws {
        let directory = try TemporaryDirectory(prefix: "changed-status")
        defer { directory.remove() }
        let path = try directory.write("photo.jpg", "the planned bytes")
        let file = try planned(path, relative: "photo.jpg")
        XCTAssertEqual(link(path, directory.path + "/copy.jpg"), 0)
        repeatUntilTheChangeTimeMoves(path, from: file) { chmod(path, 0o600); chmod(path, 0o640) }
        XCTAssertNoThrow(try ChangedFile.check(path, planned: file, project: directory.path))
    }
}
