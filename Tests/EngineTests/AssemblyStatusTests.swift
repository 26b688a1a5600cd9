@testable import Engine
import Foundation
import XCTest

final class AssemblyStatusTests: XCTestCase {
    func testTimestampsAreISO8601InUTCToTheSecond() {
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime]
        for seconds in [0, 1, 59.999, 951_782_400, 1_796_150_000.5, 4_102_444_799, 253_402_300_799] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(AuthTime.format(date), reference.string(from: date), "\(seconds)")
        }
        XCTAssertEqual(AuthTime.format(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29T00:00:00Z")
    }
}
