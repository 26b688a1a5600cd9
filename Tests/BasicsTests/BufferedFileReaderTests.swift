import Basics
import Foundation
import TestSupport
import XCTest

/// A file read front to back through a small buffer gives its bytes in order, keeps what was not
/// consumed across reads, and opens nothing but regular files.
final class BufferedFileReaderTests: XCTestCase {
    func testBytesComeInOrderAndUnconsumedOnesAreKept() throws {
        let directory = try TemporaryDirectory(prefix: "reader")
        defer { directory.remove() }
        let bytes = (0..<1000).map { UInt8($0 % 251) }
        let path = try directory.write("data.bin", data: Data(bytes))
        let reader = try XCTUnwrap(BufferedFileReader(path: path, bufferSize: 64))
        var seen: [UInt8] = []
        while try reader.fill() || !reader.available.isEmpty {
            // Consume all but the last 10 bytes each time: they must come back first after the next read.
            let take = reader.available.count > 10 ? reader.available.count - 10 : reader.available.count
            seen += reader.available.prefix(take)
            reader.consume(take)
            if take == 0 { break }
        }
        XCTAssertEqual(seen, bytes)
        XCTAssertEqual(reader.offset, 1000)
    }

    func testOnlyRegularFilesOpenAndLinksOnlyWhenAllowed() throws {
        let directory = try TemporaryDirectory(prefix: "reader")
        defer { directory.remove() }
        let path = try directory.write("file", "x")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: path)
        XCTAssertNotNil(BufferedFileReader(path: directory.path + "/link"))
        XCTAssertNil(BufferedFileReader(path: directory.path + "/link", followingLinks: false))
        XCTAssertNil(BufferedFileReader(path: directory.path))
        XCTAssertEqual(mkfifo(directory.path + "/pipe", 0o644), 0)
        XCTAssertNil(BufferedFileReader(path: directory.path + "/pipe"))
    }
}
