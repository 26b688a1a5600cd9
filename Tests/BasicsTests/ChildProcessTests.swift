import Basics
import Foundation
import TestSupport
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

    func testAProgramThatReadsNothingStillRunsIntoItsTimeout() {
        let start = ContinuousClock.now
        XCTAssertThrowsError(try ChildProcess.runBlocking(["sleep", "60"], input: Data(count: 4 << 20), timeout: .seconds(1))) { error in
            XCTAssertTrue(error is ChildProcess.TimedOut, "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(30), "the input is written as it is read, never before the timeout starts")
    }

    func testATimeoutEndsWhatTheProgramStartedToo() async throws {
        let folder = try TemporaryDirectory(prefix: "child-process")
        defer { folder.remove() }
        let pidFile = folder.path + "/child"
        XCTAssertThrowsError(try ChildProcess.runBlocking(["/bin/sh", "-c", "sleep 60 & echo $! > \(pidFile); sleep 60"], timeout: .seconds(1)))
        let child = try XCTUnwrap(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let ended = await eventually { ProcessState.hasEnded(child) }
        XCTAssertTrue(ended, "the program's own child was killed with it")
    }

    func testAProgramThatLeavesAChildBehindIsDoneWhenItExits() throws {
        let start = ContinuousClock.now
        let outcome = try ChildProcess.runBlocking(["sh", "-c", "sleep 60 & echo done"], timeout: .seconds(120))
        XCTAssertEqual(outcome.stdout, "done\n")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(30), "not held by the child that keeps the pipes open")
    }

    func testAMissingProgramIsAnError() {
        XCTAssertThrowsError(try ChildProcess.runBlocking(["no-such-program-here"], timeout: .seconds(5)))
    }

    func testACanceledTaskKillsItsProgram() async throws {
        let folder = try TemporaryDirectory(prefix: "child-process")
        defer { folder.remove() }
        let pidFile = folder.path + "/program"
        let task = Task { try await ChildProcess.run(["/bin/sh", "-c", "echo $$ > \(pidFile); exec sleep 60"], timeout: .seconds(120)) }
        // Canceled once the program runs.
        let running = await eventually { FileManager.default.fileExists(atPath: pidFile) }
        XCTAssertTrue(running)
        task.cancel()
        let start = ContinuousClock.now
        do {
            _ = try await task.value
            XCTFail("a canceled run has no outcome")
        } catch {
            XCTAssertTrue(error is ChildProcess.Canceled, "\(error)")
        }
        let program = try XCTUnwrap(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertTrue(ProcessState.hasEnded(program), "the program was killed")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(30))
    }
}
