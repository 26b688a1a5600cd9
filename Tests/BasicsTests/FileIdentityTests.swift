import Basics
import Foundation
import TestSupport
import XCTest

/// A file read in place is checked against the identity it had when handed over.
final class FileIdentityTests: XCTestCase {
    func testARewriteWithItsTimeSetBackIsSeenAndANewLinkIsNot() throws {
        let directory = try TemporaryDirectory(prefix: "file-identity")
        defer { directory.remove() }
        let path = try directory.write("input.png", "handed-over bytes")
        let handed = try FileIdentity.of(path)
        XCTAssertNil(handed.change(at: path))

        XCTAssertEqual(link(path, directory.path + "/second-hand-over"), 0)
        XCTAssertNil(handed.change(at: path), "a link the engine made is no change")

        var before = stat()
        stat(path, &before)
        let linked = try FileIdentity.of(path)
        for _ in 0..<100_000 {
            try Data("rewritten bytes!!".utf8).write(to: URL(fileURLWithPath: path))
            var times = [before.st_atim, before.st_mtim]
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
            if try FileIdentity.of(path).changed != linked.changed { break }
        }
        XCTAssertEqual(try FileIdentity.of(path).modified, linked.modified, "the time was set back")
        XCTAssertEqual(linked.change(at: path), "it was written to after it was handed over")
    }
}
