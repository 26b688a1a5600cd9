import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// `AtomicFile.update` leaves a file that would get the same bytes alone, and otherwise writes
/// exactly the new bytes, however they are cut into pieces.
final class AtomicFileUpdateTests: XCTestCase {
    private func update(_ path: String, _ pieces: [String]) throws {
        try AtomicFile.update(path, durable: false) { emit in
            for piece in pieces { emit(Data(piece.utf8)) }
        }
    }

    private func identity(_ path: String) -> (inode: UInt64, modified: Int) {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        return (UInt64(info.st_ino), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
    }

    func testTheSameBytesLeaveTheFileAlone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/plan.json"
        try update(path, ["{\"a\": ", "1}\n"])
        // Stamped an hour back: a touch would show, however coarse the file system's clock.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
        let before = identity(path)
        try update(path, ["{\"a\"", ": 1}", "\n"])
        let after = identity(path)
        XCTAssertEqual(after.inode, before.inode, "not replaced")
        XCTAssertEqual(after.modified, before.modified, "not even touched")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["plan.json"], "no temporary file left")
    }

    func testAnyDifferenceWritesTheNewBytesWhole() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/plan.json"
        let old = String(repeating: "0123456789", count: 300_000)  // 3 MB: more than one compared buffer
        var changedLate = old
        changedLate.replaceSubrange(changedLate.index(changedLate.startIndex, offsetBy: 2_500_000)...changedLate.index(changedLate.startIndex, offsetBy: 2_500_000), with: "X")
        let cases: [(String, [String])] = [
            ("a change late in the file", [String(changedLate.prefix(1_200_000)), String(changedLate.dropFirst(1_200_000))]),
            ("a shorter beginning of the old", [String(old.prefix(2_000_000))]),
            ("the old and more", [old, "tail"]),
            ("a change in the first byte", ["X" + old.dropFirst()]),
            ("nothing", []),
        ]
        for (name, pieces) in cases {
            try Data(old.utf8).write(to: URL(fileURLWithPath: path))
            let before = identity(path)
            try update(path, pieces)
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), pieces.joined(), name)
            XCTAssertNotEqual(identity(path).inode, before.inode, "replaced whole: \(name)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["plan.json"])
    }

    func testAPipeIsWrittenIntoNotWaitedOn() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let pipe = folder.path + "/plan.fifo"
        XCTAssertEqual(mkfifo(pipe, 0o644), 0)
        let read = Mutex<Data?>(nil)
        let reader = Thread {
            let descriptor = open(pipe, O_RDONLY)
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while descriptor >= 0 {
                let count = Foundation.read(descriptor, &buffer, buffer.count)
                guard count > 0 else { break }
                data.append(contentsOf: buffer[..<count])
            }
            if descriptor >= 0 { close(descriptor) }
            read.withLock { $0 = data }
        }
        reader.start()
        try update(pipe, ["through ", "the pipe"])
        eventuallyBlocking(within: .seconds(10)) { read.withLock { $0 } != nil }
        XCTAssertEqual(read.withLock { $0 }.map { String(decoding: $0, as: UTF8.self) }, "through the pipe")
    }

    func testAMissingFileIsWritten() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try update(folder.path + "/new.json", ["new"])
        XCTAssertEqual(try String(contentsOfFile: folder.path + "/new.json", encoding: .utf8), "new")
        XCTAssertThrowsError(try update(folder.path + "/missing/new.json", ["x"])) { error in
            XCTAssertTrue("\(error)".contains("missing/new.json"), "\(error)")
        }
    }
}
