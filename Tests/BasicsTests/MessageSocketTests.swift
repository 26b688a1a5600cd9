import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// Unix message sockets: messages keep their bounds, an open file rides along, and a peer cannot
/// leave the receiver holding files or waiting forever.
final class MessageSocketTests: XCTestCase {
    private func pair(_ folder: TemporaryDirectory) throws -> (listening: MessageSocket, client: MessageSocket, server: MessageSocket) {
        let listening = try MessageSocket.listen(folder.path + "/s.sock")
        let client = try XCTUnwrap(MessageSocket.connect(folder.path + "/s.sock"))
        let server = try XCTUnwrap(listening.accept())
        return (listening, client, server)
    }

    func testMessagesKeepTheirBoundsAndCarryAnOpenFile() throws {
        let folder = try TemporaryDirectory(prefix: "socket")
        defer { folder.remove() }
        let (listening, client, server) = try pair(folder)
        _ = listening
        let path = try folder.write("file.txt", "handed over")
        let file = open(path, O_RDONLY)
        defer { close(file) }
        XCTAssertTrue(client.send("first", file: file))
        XCTAssertTrue(client.send("second"))
        let first = try XCTUnwrap(server.receive(waiting: .seconds(5)))
        XCTAssertEqual(first.text, "first")
        XCTAssertGreaterThanOrEqual(first.file, 0)
        defer { close(first.file) }
        var bytes = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(pread(first.file, &bytes, 32, 0), 11)
        XCTAssertEqual(String(decoding: bytes.prefix(11), as: UTF8.self), "handed over")
        XCTAssertEqual(fcntl(first.file, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "a received file is not passed on to programs started later")
        let second = try XCTUnwrap(server.receive(waiting: .seconds(5)))
        XCTAssertEqual(second.text, "second")
        XCTAssertEqual(second.file, -1)
    }

    func testATooLongMessageIsRefusedAndItsFileClosed() throws {
        let folder = try TemporaryDirectory(prefix: "socket")
        defer { folder.remove() }
        let (listening, client, server) = try pair(folder)
        _ = listening
        let file = open(try folder.write("f", "x"), O_RDONLY)
        defer { close(file) }
        let before = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        XCTAssertTrue(client.send(String(repeating: "a", count: 5000), file: file))
        XCTAssertNil(server.receive(capacity: 4096, waiting: .seconds(5)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count, before, "no descriptor kept")
        // A peer that sends nothing is waited for no longer than asked.
        let started = ContinuousClock.now
        XCTAssertNil(server.receive(waiting: .milliseconds(200)))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        // A closed peer ends the receiving.
        client.shutDown()
        XCTAssertNil(server.receive(waiting: .seconds(5)))
    }

    func testTheSocketIsThisUsersOnlyAndReplacesOnlyASocket() throws {
        let folder = try TemporaryDirectory(prefix: "socket")
        defer { folder.remove() }
        let path = folder.path + "/s.sock"
        var listening: MessageSocket? = try MessageSocket.listen(path)
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFSOCK)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        listening = nil
        // Left behind by a process that died: replaced.
        listening = try MessageSocket.listen(path)
        XCTAssertNotNil(listening)
        // Anything else at the path is kept, and the socket not made.
        let other = try folder.write("notes.txt", "keep me")
        XCTAssertThrowsError(try MessageSocket.listen(other))
        XCTAssertEqual(try String(contentsOfFile: other, encoding: .utf8), "keep me")
        // A path longer than a socket address holds is refused, not cut short.
        let long = folder.path + "/" + String(repeating: "d", count: MessageSocket.maxPathLength)
        XCTAssertThrowsError(try MessageSocket.listen(long))
        XCTAssertNil(MessageSocket.connect(long))
        XCTAssertNil(MessageSocket.connect(folder.path + "/nothing.sock"))
    }

    func testAListenerThatTakesNoMoreConnectionsIsNotWaitedFor() throws {
        let folder = try TemporaryDirectory(prefix: "socket")
        defer { folder.remove() }
        // A listener that never accepts: once its backlog is full, connecting fails at once.
        let listening = try MessageSocket.listen(folder.path + "/s.sock")
        _ = listening
        let started = ContinuousClock.now
        var made: [MessageSocket] = [], refused = 0
        for _ in 0..<200 {
            if let socket = MessageSocket.connect(folder.path + "/s.sock") { made.append(socket) } else { refused += 1 }
        }
        XCTAssertGreaterThan(refused, 0)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "no connect waited for the listener")
    }

    func testShuttingDownEndsAWaitingAccept() async throws {
        let folder = try TemporaryDirectory(prefix: "socket")
        defer { folder.remove() }
        let listening = try MessageSocket.listen(folder.path + "/s.sock")
        let ended = expectation(description: "accept returns")
        let thread = Mutex<Int32?>(nil)
        Thread {
            thread.withLock { $0 = ProcessState.currentThread }
            XCTAssertNil(listening.accept())
            ended.fulfill()
        }.start()
        // Shut down once the thread sleeps in its accept.
        let waiting = await eventually { thread.withLock { $0 }.flatMap(ProcessState.ofThread) == "S" }
        XCTAssertTrue(waiting, "the thread waits in accept")
        listening.shutDown()
        await fulfillment(of: [ended], timeout: 5)
    }
}
