@testable import Engine
import Basics
import Crypto
import Foundation
import TestSupport
import XCTest

/// Files read in place are pinned for an Assembly's steps: what the steps read is the version
/// handed over, whatever happens to its path meanwhile.
final class PinnedInputsTests: XCTestCase {
    private func handed(_ path: String, name: String) throws -> AssemblyFile {
        var file = FileFacts.describe(id: RandomID.hex32(), name: name, field: "file_0", path: path, size: 0, mime: "text/plain", isTus: true, facts: false)
        file.inPlace = try FileIdentity.of(path)
        return file
    }

    func testAPathSwappedForALinkAfterPinningIsNotWhatTheStepsRead() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let source = try folder.write("project/photo.txt", "the planned bytes")
        let secret = try folder.write("outside/secret.txt", "not for any Assembly")
        try FileManager.default.createDirectory(atPath: folder.path + "/data/results/a", withIntermediateDirectories: true)
        let pinned = try PinnedInputs([try handed(source, name: "photo.txt")], in: folder.path + "/data/results/a", below: folder.path + "/data/results")
        // The path now leads elsewhere: a link to a file outside the project.
        try FileManager.default.removeItem(atPath: source)
        try FileManager.default.createSymbolicLink(atPath: source, withDestinationPath: secret)
        let read = try XCTUnwrap(pinned.uploads.first?.path)
        XCTAssertTrue(read.hasPrefix(folder.path + "/data/results/a/inputs/"), read)
        XCTAssertEqual(try String(contentsOfFile: read, encoding: .utf8), "the planned bytes")
        XCTAssertNoThrow(try pinned.checkUnchanged(), "the pinned file itself did not change")
    }

    func testALinkInPlaceBeforePinningAndAWriteDuringTheStepsFail() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let source = try folder.write("project/a.txt", "version one")
        let secret = try folder.write("outside/secret.txt", "not for any Assembly")
        let file = try handed(source, name: "a.txt")
        try FileManager.default.createDirectory(atPath: folder.path + "/data/results/a", withIntermediateDirectories: true)

        try FileManager.default.removeItem(atPath: source)
        try FileManager.default.createSymbolicLink(atPath: source, withDestinationPath: secret)
        XCTAssertThrowsError(try PinnedInputs([file], in: folder.path + "/data/results/a", below: folder.path + "/data/results")) { error in
            XCTAssertEqual((error as? RobotError)?.code, .fileChanged)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/data/results/a/inputs/\(file.id)/a.txt"), "nothing of the other file was pinned")

        try FileManager.default.removeItem(atPath: source)
        _ = try folder.write("project/a.txt", "version one")
        let again = try handed(source, name: "a.txt")
        let pinned = try PinnedInputs([again], in: folder.path + "/data/results/a", below: folder.path + "/data/results")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" and more".utf8))
        try handle.close()
        XCTAssertThrowsError(try pinned.checkUnchanged(), "written to while the steps read it") { error in
            XCTAssertEqual((error as? RobotError)?.code, .fileChanged)
        }
    }
}
