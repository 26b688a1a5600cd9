import APIClients
import Crypto
import Foundation
import XCTest

/// A file's identity for resuming: its plan's digest while it keeps the time the plan saw, with
/// none of its bytes read again; otherwise a hash of its first and last 64 KiB.
final class LocalFileTests: XCTestCase {
    func testThePlansDigestIdentifiesTheVersionItWasMadeFromWithoutReadingIt() throws {
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("photo.bin", size: 300_000)
        let sampled = try LocalFile.identify(path)
        let digest = SHA256.hex(Array(data))

        let known = try LocalFile.identify(path, known: (digest, sampled.modified))
        XCTAssertEqual(known.sample, "sha256:" + digest)
        XCTAssertEqual(known.size, sampled.size)
        XCTAssertEqual(known.path, sampled.path)

        // Other bytes under the same time: only the sampled hash sees them, so the known one was not read.
        var other = data
        other[0] ^= 0xff
        try other.write(to: URL(fileURLWithPath: path))
        let time = timespec(tv_sec: Int(sampled.modified / 1_000_000_000), tv_nsec: Int(sampled.modified % 1_000_000_000))
        XCTAssertEqual(utimensat(AT_FDCWD, path, [time, time], 0), 0)
        XCTAssertEqual(try LocalFile.identify(path, known: (digest, sampled.modified)).sample, "sha256:" + digest)
        XCTAssertNotEqual(try LocalFile.identify(path).sample, sampled.sample)
    }

    func testADigestOfAnotherTimeIsNotUsed() throws {
        let fixture = try UploadFixture()
        let (path, _) = try fixture.file("photo.bin", size: 200_000)
        let sampled = try LocalFile.identify(path)
        let stale = try LocalFile.identify(path, known: (String(repeating: "0", count: 64), sampled.modified - 1))
        XCTAssertEqual(stale, sampled)
        XCTAssertEqual(stale.sample.count, 64)
        XCTAssertNotEqual(
            ResumeStore.key(endpoint: "http://127.0.0.1:1/files/", file: stale),
            ResumeStore.key(endpoint: "http://127.0.0.1:1/files/", file: try LocalFile.identify(path, known: (String(repeating: "0", count: 64), sampled.modified))))
    }
}
