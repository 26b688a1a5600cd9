import Basics
import Foundation
import XCTest

/// The one process runner, against real programs.
final class ChildProcessTests: XCTestCase {
    func testTheTestProcessIgnoresSIGPIPEAsTheToolDoes() {
        var current = sigaction()
        XCTAssertEqual(sigaction(SIGPIPE, nil, &current), 0)
        XCTAssertEqual(unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self), unsafeBitCast(SIG_IGN, to: Int.self),
                       "Tests/TestProcess sets SIGPIPE to SIG_IGN before any test runs")
    }

    func testAProgramThatExitsWithoutReadingItsInputIsAnOutcomeNotASignal() throws {
        // 4 MiB is more than a pipe holds, so the write meets the closed reader.
        let outcome = try ChildProcess.runBlocking(["/bin/sh", "-c", "exit 3"], input: Data(count: 4 << 20), timeout: .seconds(30))
        XCTAssertEqual(outcome.status, 3)
    }

    func testOutputAndStatusAreCollected() throws {
        let outcome = try ChildProcess.runBlocking(["/bin/sh", "-c", "cat; echo oops >&2; exit 1"], input: Data("in".utf8), timeout: .seconds(30))
        XCTAssertEqual([String(outcome.status), outcome.stdout, outcome.stderr], ["1", "in", "oops\n"])
    }
}
