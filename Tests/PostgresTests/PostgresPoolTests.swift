import Basics
import Postgres
import Synchronization
import TestSupport
import XCTest

final class PostgresPoolTests: PostgresServerTestCase {
    func testSixteenUsersShareFourConnections() throws {
        let pool = PostgresPool(try PostgresAddress(parsing: makeDatabase()), size: 4, applicationName: "pool")
        defer { pool.close() }
        try pool.withConnection { try $0.execute("CREATE TABLE hits (user_index int, backend int)") }
        let inUse = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        onThreads(16) { index in
            do {
                for round in 0..<10 {
                    try pool.withConnection { connection in
                        let now = inUse.add(1, ordering: .relaxed).newValue
                        most.max(now, ordering: .relaxed)
                        defer { inUse.subtract(1, ordering: .relaxed) }
                        try connection.transaction { connection in
                            try connection.execute("INSERT INTO hits VALUES ($1, pg_backend_pid())", [String(index)])
                            if round % 3 == 0 { try connection.execute("SELECT pg_sleep(0.005)") }
                        }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(index): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertLessThanOrEqual(most.load(ordering: .relaxed), 4)
        XCTAssertGreaterThan(most.load(ordering: .relaxed), 1, "users ran at once")
        XCTAssertLessThanOrEqual(pool.openConnections, 4)
        let counts = try pool.withConnection { connection in
            try connection.execute("SELECT count(*) AS hits, count(DISTINCT backend) AS backends FROM hits")
        }
        XCTAssertEqual(try counts.int64(0, "hits"), 160)
        XCTAssertLessThanOrEqual(try XCTUnwrap(counts.int64(0, "backends")), 4)
        // Each transaction: BEGIN, the INSERT, COMMIT, and a pg_sleep every third round (4 of 10).
        XCTAssertEqual(pool.roundTrips, 1 + 16 * (10 * 3 + 4) + 1)
    }

    func testAConnectionTheServerEndedIsReplacedOnNextUse() throws {
        let pool = PostgresPool(try PostgresAddress(parsing: makeDatabase()), size: 1, applicationName: "pool")
        defer { pool.close() }
        let first = try pool.withConnection { try XCTUnwrap($0.execute("SELECT pg_backend_pid() AS pid").string(0, "pid")) }
        let killer = try PostgresConnection(PostgresAddress(parsing: postgres.url), applicationName: "killer")
        defer { killer.close() }
        XCTAssertEqual(try killer.execute("SELECT pg_terminate_backend($1::int, 10000) AS done", [first]).string(0, "done"), "t")
        // The next user gets a working connection: the ended one is noticed when lent, without a round trip.
        let second = try pool.withConnection { try XCTUnwrap($0.execute("SELECT pg_backend_pid() AS pid").string(0, "pid")) }
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(pool.openConnections, 1)
    }

    func testAConnectionBrokenDuringUseIsReplaced() throws {
        let pool = PostgresPool(try PostgresAddress(parsing: makeDatabase()), size: 1, applicationName: "pool")
        defer { pool.close() }
        let killer = try PostgresConnection(PostgresAddress(parsing: postgres.url), applicationName: "killer")
        defer { killer.close() }
        XCTAssertThrowsError(try pool.withConnection { connection in
            let pid = try XCTUnwrap(connection.execute("SELECT pg_backend_pid() AS pid").string(0, "pid"))
            try killer.execute("SELECT pg_terminate_backend($1::int, 10000)", [pid])
            try connection.execute("SELECT 1")
        }) { XCTAssertEqual(($0 as? PostgresError)?.kind, .connectionLost, "\($0)") }
        XCTAssertEqual(pool.openConnections, 0, "the broken one was closed")
        XCTAssertEqual(try pool.withConnection { try $0.execute("SELECT 1 AS one").int64(0, "one") }, 1)
    }

    func testATransactionLeftOpenIsRolledBack() throws {
        let pool = PostgresPool(try PostgresAddress(parsing: makeDatabase()), size: 1, applicationName: "pool")
        defer { pool.close() }
        try pool.withConnection { connection in
            try connection.execute("CREATE TABLE t (x int)")
            try connection.execute("BEGIN")
            try connection.execute("INSERT INTO t VALUES (1)")
        }
        XCTAssertEqual(try pool.withConnection { try $0.execute("SELECT count(*) AS n FROM t").int64(0, "n") }, 0)
    }

    func testAFailedConnectGivesBackItsPlace() throws {
        let port = try NginxProxy.freePort()
        let pool = PostgresPool(try PostgresAddress(parsing: "postgres://u@127.0.0.1:\(port)/db"), size: 1, applicationName: "pool")
        defer { pool.close() }
        for _ in 0..<3 {
            XCTAssertThrowsError(try pool.withConnection { _ in }) { XCTAssertEqual(($0 as? PostgresError)?.kind, .connect) }
        }
        XCTAssertEqual(pool.openConnections, 0)
    }

    func testClosingWakesWaitersWithAnError() throws {
        let pool = PostgresPool(try PostgresAddress(parsing: makeDatabase()), size: 1, applicationName: "pool")
        let outcome = Mutex<String?>(nil)
        let holding = WakeSignal(), release = WakeSignal()
        onThreads(3, within: .seconds(20)) { index in
            switch index {
            case 0:  // holds the one connection until the waiter has its answer, so only the close can wake it
                _ = try? pool.withConnection { _ in  // what the holder gets is not what this test checks
                    holding.signal()
                    release.wait()
                }
            case 1:  // waits for the connection
                holding.wait()
                do {
                    try pool.withConnection { _ in }
                    outcome.withLock { $0 = "lent" }
                } catch {
                    outcome.withLock { $0 = "\(error)" }
                }
                release.signal()
            default:  // closes the pool once the waiter waits
                if eventuallyBlocking(within: .seconds(10), { pool.waitingUsers == 1 }) { pool.close() }
            }
        }
        let answer = try XCTUnwrap(outcome.withLock { $0 }, "the waiter was not woken")
        XCTAssertTrue(answer.hasPrefix("take a connection from the pool on postgres://postgres@127.0.0.1:"), answer)
        XCTAssertTrue(answer.contains("the connection is closed"), answer)
        XCTAssertEqual(pool.openConnections, 0, "the lent one was closed when given back")
    }
}
