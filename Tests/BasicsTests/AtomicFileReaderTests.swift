@testable import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// A FIFO written in place waits for its reader on an open the kernel wakes, for a while: a
/// reader that comes meanwhile gets the bytes, and when none comes the write fails and leaves
/// no writer behind.
final class AtomicFileReaderTests: XCTestCase {
    private func isWaiting() -> Bool { ProcessState.threadNames.contains { $0 == "fifo-writer" } }

    func testAFIFONoProcessReadsFailsAfterTheWaitAndLeavesNoWriter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/state.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let start = ContinuousClock.now
        XCTAssertThrowsError(try AtomicFile.write(Data("x".utf8), to: fifo)) { error in
            XCTAssertEqual((error as? FileError)?.code, ENXIO, "\(error)")
            XCTAssertTrue("\(error)".contains("it is a FIFO that no process reads"), "\(error)")
        }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, AtomicFile.readerWait, "a reader had the time to come")
        XCTAssertTrue(eventuallyBlocking { !isWaiting() }, "the waiting open ended")
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        var byte: UInt8 = 0
        XCTAssertEqual(read(reader, &byte, 1), 0, "no writer holds the FIFO open")
    }

    func testAReaderThatComesDuringTheWaitGetsTheBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/plan.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let written = Mutex<String?>(nil)
        DedicatedThread.start("fifo-test-writer") {
            do {
                try AtomicFile.write(Data("for a late reader".utf8), to: fifo)
                written.withLock { $0 = "written" }
            } catch {
                written.withLock { $0 = "\(error)" }
            }
        }
        XCTAssertTrue(eventuallyBlocking(every: .milliseconds(1)) { isWaiting() }, "the writer waits for a reader")
        // Opened without waiting (a writer that gave up leaves nothing to wait for), then read as usual.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) & ~O_NONBLOCK)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "for a late reader")
        XCTAssertTrue(eventuallyBlocking { written.withLock { $0 } != nil })
        XCTAssertEqual(written.withLock { $0 }, "written")
    }
}
