import Postgres
import TestSupport
import XCTest

final class PostgresNotificationTests: PostgresServerTestCase {
    private func connectTwice() throws -> (PostgresConnection, PostgresConnection) {
        let address = try PostgresAddress(parsing: makeDatabase())
        return (try PostgresConnection(address, applicationName: "listener"), try PostgresConnection(address, applicationName: "sender"))
    }

    func testANotificationReachesTheListenerQuickly() throws {
        let (listener, sender) = try connectTwice()
        defer { listener.close(); sender.close() }
        try listener.listen("Assembly done")
        var latencies: [Duration] = []
        for index in 0..<100 {
            let sent = ContinuousClock.now
            try sender.notify("Assembly done", payload: "assembly-\(index)")
            let received = try listener.notifications(waitingAtMost: .seconds(10))
            latencies.append(ContinuousClock.now - sent)
            XCTAssertEqual(received.map(\.payload), ["assembly-\(index)"])
            XCTAssertEqual(received.first?.channel, "Assembly done")
        }
        latencies.sort()
        let p50 = latencies[49], p95 = latencies[94]
        print("postgres: NOTIFY to the listener's return, 100 times: p50 \(p50), p95 \(p95), most \(latencies[99])")
        XCTAssertLessThan(p95, .milliseconds(500))
    }

    func testQueuedNotificationsComeAtOnceAndInOrder() throws {
        let (listener, sender) = try connectTwice()
        defer { listener.close(); sender.close() }
        try listener.listen("jobs")
        try listener.listen("uploads")
        try sender.notify("jobs", payload: "1")
        try sender.notify("elsewhere", payload: "not heard")
        try sender.notify("uploads")
        try sender.notify("jobs", payload: "2")
        let senderPid = try XCTUnwrap(sender.execute("SELECT pg_backend_pid() AS pid").int64(0, "pid"))
        var received: [PostgresNotification] = []
        // All were sent before this wait: they come in one or two reads, never after a long wait.
        let started = ContinuousClock.now
        while received.count < 3, ContinuousClock.now - started < .seconds(10) {
            received += try listener.notifications(waitingAtMost: .seconds(10))
        }
        XCTAssertEqual(received.map(\.channel), ["jobs", "uploads", "jobs"])
        XCTAssertEqual(received.map(\.payload), ["1", "", "2"])
        XCTAssertEqual(received.map { Int64($0.sender) }, [senderPid, senderPid, senderPid])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
    }

    func testAWaitWithNothingToComeEndsAtItsTime() throws {
        let (listener, sender) = try connectTwice()
        defer { listener.close(); sender.close() }
        try listener.listen("quiet")
        let started = ContinuousClock.now
        XCTAssertEqual(try listener.notifications(waitingAtMost: .milliseconds(200)), [])
        let waited = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(200))
        XCTAssertLessThan(waited, .seconds(2))
        XCTAssertEqual(try listener.notifications(waitingAtMost: .zero), [])
    }

    func testANotificationInATransactionComesAtItsCommit() throws {
        let (listener, sender) = try connectTwice()
        defer { listener.close(); sender.close() }
        try listener.listen("done")
        try sender.transaction { connection in
            try connection.notify("done", payload: "committed")
            XCTAssertEqual(try listener.notifications(waitingAtMost: .milliseconds(100)), [], "not before the commit")
        }
        XCTAssertEqual(try listener.notifications(waitingAtMost: .seconds(10)).map(\.payload), ["committed"])
        struct Canceled: Error {}
        XCTAssertThrowsError(try sender.transaction { connection in
            try connection.notify("done", payload: "rolled back")
            throw Canceled()
        })
        try sender.notify("done", payload: "after")
        XCTAssertEqual(try listener.notifications(waitingAtMost: .seconds(10)).map(\.payload), ["after"])
    }

    func testAListenerWhoseSessionEndsIsTold() throws {
        let (listener, sender) = try connectTwice()
        defer { listener.close(); sender.close() }
        try listener.listen("jobs")
        let pid = try XCTUnwrap(listener.execute("SELECT pg_backend_pid() AS pid").string(0, "pid"))
        try sender.execute("SELECT pg_terminate_backend($1::int, 10000)", [pid])
        XCTAssertThrowsError(try listener.notifications(waitingAtMost: .seconds(10))) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connectionLost, "\(error)")
        }
        XCTAssertTrue(listener.isBroken)
    }

    func testABadChannelNameIsRefused() throws {
        let (listener, sender) = try connectTwice()
        defer { listener.close(); sender.close() }
        XCTAssertThrowsError(try listener.listen(String(repeating: "x", count: 64)))
        XCTAssertThrowsError(try sender.notify(""))
        try listener.listen("with \"quotes\"")
        try sender.notify("with \"quotes\"", payload: "ok")
        XCTAssertEqual(try listener.notifications(waitingAtMost: .seconds(10)).map(\.payload), ["ok"])
    }
}
