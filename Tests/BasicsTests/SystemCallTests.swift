import Basics
import Foundation
import XCTest

final class SystemCallTests: XCTestCase {
    func testAnInterruptedCallIsMadeAgainAndAnyOtherFailureReturned() {
        var calls = 0
        let result = SystemCall.uninterrupted { () -> Int in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        XCTAssertEqual(result, 7)
        XCTAssertEqual(calls, 3)
        let failed = SystemCall.uninterrupted { () -> Int32 in errno = EBADF; return -1 }
        XCTAssertEqual(failed, -1)
        XCTAssertEqual(errno, EBADF, "the failure's errno is left for the caller")
    }

    func testWriteAllWritesEveryByteAtTheOffsetAndNamesTheFailure() throws {
        let path = NSTemporaryDirectory() + "/system-call-\(UUID().uuidString)"
        defer { unlink(path) }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let bytes = [UInt8](repeating: 0x61, count: 3 << 20)
        XCTAssertNil(bytes.withUnsafeBytes { SystemCall.writeAll($0, to: descriptor) })
        XCTAssertNil(Array("bc".utf8).withUnsafeBytes { SystemCall.writeAll($0, to: descriptor, at: 1) })
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(data.count, 3 << 20)
        XCTAssertEqual(Array(data.prefix(4)), Array("abca".utf8))
        XCTAssertEqual(Array("x".utf8).withUnsafeBytes { SystemCall.writeAll($0, to: -1) }, EBADF)
    }
}
