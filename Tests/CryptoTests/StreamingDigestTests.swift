import Crypto
import Foundation
import Synchronization
import TestSupport
import XCTest

/// A file's digest is read from what the path is when opened: a FIFO put in an input's place is
/// refused at once, never waited on for a writer that may not come.
final class StreamingDigestTests: XCTestCase {
    func testAFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let directory = try TemporaryDirectory(prefix: "digest-fifo")
        defer { directory.remove() }
        let path = directory.path + "/photo.png"
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let finished = expectation(description: "the digest returned")
        let failed = FailureBox()
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            do { _ = try StreamingDigest.file(path, algorithm: .sha256, buffer: &buffer) } catch { failed.set(true) }
            finished.fulfill()
        }
        if XCTWaiter().wait(for: [finished], timeout: 10) != .completed {
            // Let the blocked open go, so the test ends.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            wait(for: [finished], timeout: 10)
            XCTFail("the open of a FIFO waited for a writer")
        }
        XCTAssertTrue(failed.get(), "a FIFO has no digest")
    }
}

private final class FailureBox: Sendable {
    private let value = Mutex(false)
    func set(_ new: Bool) { value.withLock { $0 = new } }
    func get() -> Bool { value.withLock { $0 } }
}
