import APIClients
import Foundation
import Wire
import XCTest

/// The service's clock, as its `Date` headers show it.
final class ServiceClockTests: XCTestCase {
    private let machine = Date(timeIntervalSince1970: 1_796_000_000)

    private func clock() -> ServiceClock {
        let machine = machine
        return ServiceClock(local: { machine })
    }

    func testASkewBeyondTheToleranceMovesExpiriesAndIsNamed() {
        let clock = clock()
        XCTAssertFalse(clock.isKnown)
        XCTAssertEqual(clock.now, machine)
        // Three hours and two minutes ahead.
        clock.observe(dateHeader: Self.header(machine.addingTimeInterval(3 * 3600 + 120)))
        XCTAssertEqual(clock.skew, 3 * 3600 + 120, accuracy: 1)
        XCTAssertEqual(clock.now.timeIntervalSince(machine), 3 * 3600 + 120, accuracy: 1)
        XCTAssertTrue(clock.explanation.contains("3 h 2 min ahead of this machine's"), clock.explanation)
        clock.observe(dateHeader: Self.header(machine.addingTimeInterval(-50)))
        XCTAssertTrue(clock.explanation.contains("50 s behind this machine's"), clock.explanation)
        XCTAssertEqual(clock.machineNow, machine)
    }

    func testADifferenceWithinTheHeadersResolutionIsNoSkewAndNonsenseIsIgnored() {
        let clock = clock()
        clock.observe(dateHeader: Self.header(machine.addingTimeInterval(1)))
        XCTAssertEqual(clock.skew, 0)
        XCTAssertTrue(clock.explanation.contains("agrees"), clock.explanation)
        clock.observe(dateHeader: "yesterday")
        clock.observe(dateHeader: "Thu, 31 Foo 2026 15:23:29 GMT")
        clock.observe(dateHeader: "Thu, 03 Dec 2026 25:23:29 GMT")
        clock.observe(dateHeader: nil)
        XCTAssertEqual(clock.skew, 0)
    }

    /// An IMF-fixdate, as servers send it.
    private static func header(_ date: Date) -> String { TusProtocol.formatHTTPDate(date) }
}
