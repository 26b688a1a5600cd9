import Basics
import Dispatch
import XCTest

/// A stop waits for the work in flight, and no longer than that.
final class DrainTests: XCTestCase {
    func testWaitingEndsWhenTheLastPieceLeaves() {
        let drain = Drain()
        XCTAssertTrue(drain.wait(atMost: .seconds(1)), "nothing in flight: at once")
        for _ in 0..<3 { drain.enter() }
        for delay in [0.05, 0.1, 0.15] {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { drain.leave() }
        }
        XCTAssertTrue(drain.wait(atMost: .seconds(30)))
        XCTAssertEqual(drain.count, 0)
    }

    func testWaitingGivesUpAfterItsLongest() {
        let drain = Drain()
        drain.enter()
        XCTAssertFalse(drain.wait(atMost: .milliseconds(50)))
        XCTAssertEqual(drain.count, 1)
        drain.leave()
    }
}
