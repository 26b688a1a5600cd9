import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// The server's defences and manners (`HTTPServer`, `ConnectionWatch`): keep-alive, a deadline
/// for request heads, a minimum rate for bodies, per-client limits that close idle connections first.
final class HTTPServerLimitsTests: HTTPServerTestCase {
    private static func complete(_ text: String) -> Bool { text.hasSuffix("}") || text.hasSuffix("\n") && text.contains("\r\n\r\n") }

    func testConnectionsAreKeptAlive() throws {
        let server = try start()
        defer { server.stop() }
        let connection = try RawConnection(port: Int(server.port))
        for _ in 0..<3 {
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
            let answer = connection.read(timeout: 5, until: Self.complete)
            XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 200"), answer.text)
            XCTAssertFalse(answer.text.lowercased().contains("connection: close"), answer.text)
            XCTAssertFalse(answer.closed)
        }
    }

    func testTrickledHeadersAreCutOffAtTheDeadline() async throws {
        let clock = ManualClock()
        let server = try start { $0.headerTimeout = 1; $0.clock = clock }
        defer { server.stop() }
        let slow = try RawConnection(port: Int(server.port))
        slow.send("GET /healthz HTTP/1.1\r\n")
        let seen = await eventually { server.connections().awaitingHead == 1 }
        XCTAssertTrue(seen)
        // One header line every 200 ms resets an idle timeout forever; the deadline does not reset.
        for _ in 0..<4 {
            XCTAssertTrue(slow.send("X-Slow: \(Int.random(in: 0..<1000))\r\n"))
            clock.advance(by: .milliseconds(200))
        }
        XCTAssertEqual(server.connections().awaitingHead, 1, "within the deadline the head may trickle")
        slow.send("X-Slow: 1\r\n")
        clock.advance(by: .milliseconds(400))
        // The watch looks every quarter second of its clock, and may have gone back to sleep only
        // after that move (then its next look is a quarter second on): the clock moves on in
        // quarters until it has looked. Still far below the 30 s idle timeout a trickle would reset.
        var closed = false
        for _ in 0..<20 where !closed {
            closed = slow.read(timeout: 1).closed
            if !closed { clock.advance(by: .milliseconds(250)) }
        }
        XCTAssertTrue(closed, "a trickling client loses its connection at the deadline")
    }

    /// Each step waits for the server to report the state the next one needs, and the server's
    /// clock stands still, so no deadline or body rate depends on how busy the machine is.
    func testOneClientCannotTakeEveryConnection() async throws {
        let server = try start { $0.perClientLimit = 4; $0.clock = ManualClock() }
        defer { server.stop() }
        let port = Int(server.port)
        func connections() -> ConnectionCounts { server.connections(from: "127.0.0.1") }
        // Four connections that sent half a head each, in order: the oldest makes room for the next.
        var hogs: [RawConnection] = []
        for count in 1...4 {
            let hog = try RawConnection(port: port)
            hog.send("GET /healthz HTTP/1.1\r\n")
            hogs.append(hog)
            let seen = await eventually { connections().awaitingHead == count }
            XCTAssertTrue(seen, "the server sees half head \(count): \(connections())")
        }
        let fifth = try RawConnection(port: port)
        fifth.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertTrue(fifth.read(timeout: 30, until: Self.complete).text.hasPrefix("HTTP/1.1 200"), "half heads cannot lock an address out")
        XCTAssertTrue(hogs[0].read(timeout: 30).closed, "the oldest half head went")
        let fifthIdle = await eventually { connections() == ConnectionCounts(awaitingHead: 3, idle: 1) }
        XCTAssertTrue(fifthIdle, "three half heads and one idle connection: \(connections())")
        // Four requests being served fill the address (each makes room: the idle one first, then
        // the oldest half heads); the next is turned away ...
        var busy: [RawConnection] = []
        for count in 1...4 {
            let connection = try RawConnection(port: port)
            connection.send("POST /form HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nab")
            busy.append(connection)
            let receiving = await eventually { connections().receivingBody == count }
            XCTAssertTrue(receiving, "the server receives body \(count): \(connections())")
        }
        XCTAssertEqual(connections(), ConnectionCounts(receivingBody: 4, bodyBytes: 8))
        let turnedAway = try RawConnection(port: port)
        turnedAway.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let refused = turnedAway.read(timeout: 30, until: Self.complete)
        XCTAssertTrue(refused.closed && !refused.text.hasPrefix("HTTP/1.1 200"), "turned away: \(refused)")
        XCTAssertEqual(connections(), ConnectionCounts(receivingBody: 4, bodyBytes: 8), "the requests being served go on")
        // ... while another client is answered at once.
        let other = try RawConnection(port: port, source: "127.0.0.2")
        other.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let answer = other.read(timeout: 30, until: Self.complete)
        XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 200"), answer.text)
    }

    /// One process's idle keep-alive connections fill its address's share: the next client on the
    /// same address (every loopback client shares one) is answered, and the longest idle goes.
    func testIdleKeepAliveConnectionsMakeRoomForTheNextClient() async throws {
        let clock = ManualClock()
        let server = try start { $0.perClientLimit = 4; $0.clock = clock }
        defer { server.stop() }
        let request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"
        var pooled: [RawConnection] = []
        for count in 1...4 {
            let connection = try RawConnection(port: Int(server.port))
            connection.send(request)
            XCTAssertTrue(connection.read(timeout: 30, until: Self.complete).text.hasPrefix("HTTP/1.1 200"))
            pooled.append(connection)
            let idle = await eventually { server.connections().idle == count }
            XCTAssertTrue(idle, "\(server.connections())")
            clock.advance(by: .milliseconds(50))
        }
        let next = try RawConnection(port: Int(server.port))
        next.send(request)
        let answer = next.read(timeout: 30, until: Self.complete)
        XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 200"), "the fifth is answered: \(answer.text)")
        XCTAssertTrue(pooled[0].read(timeout: 2).closed, "the longest idle connection was closed to make room")
        XCTAssertTrue(pooled[3].send(request) && pooled[3].read(timeout: 2, until: Self.complete).text.hasPrefix("HTTP/1.1 200"), "the others stay")
    }

    /// A body that sends a byte now and then keeps resetting the idle timeout: past its grace it
    /// must keep a minimum average rate, or it is ended. A steady body is not.
    func testATrickledBodyIsEndedAndASteadyOneIsNot() async throws {
        let clock = ManualClock()
        let server = try start { $0.bodyGrace = 1; $0.minimumBodyRate = 200; $0.clock = clock }
        defer { server.stop() }
        let head = "POST /form HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
        let slow = try RawConnection(port: Int(server.port))
        slow.send(head)
        // A byte every 300 ms: within the grace it goes on; past it, below 200 bytes a second, it ends.
        for sent in 1...3 {
            XCTAssertTrue(slow.send("a"))
            let arrived = await eventually { server.connections().bodyBytes == Int64(sent) }
            XCTAssertTrue(arrived, "\(server.connections())")
            clock.advance(by: .milliseconds(300))
        }
        XCTAssertEqual(server.connections().receivingBody, 1, "within its grace a body may trickle")
        slow.send("a")
        clock.advance(by: .milliseconds(300))
        XCTAssertTrue(slow.read(timeout: 30).closed, "a trickled body is ended past its grace")

        let steady = try RawConnection(port: Int(server.port))
        steady.send(head.replacingOccurrences(of: "100000", with: "3011"))
        XCTAssertTrue(steady.send("token=ok&b="))
        var answer = ""
        // 200 bytes every 150 ms, each in before the clock moves on.
        for step in 1...15 {
            XCTAssertTrue(steady.send(String(repeating: "b", count: 200)))
            if step < 15 {
                let arrived = await eventually { server.connections().bodyBytes == Int64(11 + 200 * step) }
                XCTAssertTrue(arrived, "\(server.connections())")
                clock.advance(by: .milliseconds(150))
            }
        }
        answer += steady.read(timeout: 30, until: { Self.complete(answer + $0) }).text
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), "a body at the minimum rate goes on and is answered: \(answer)")
    }

    /// Bodies that each keep just above the minimum rate fill an address's share: the next client
    /// is answered, and the slowest body makes room (a tus upload cut off resumes).
    func testTheSlowestBodyMakesRoomForTheNextClient() async throws {
        let clock = ManualClock()
        let server = try start { $0.perClientLimit = 4; $0.bodyGrace = 30; $0.clock = clock }
        defer { server.stop() }
        let head = "POST /form HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
        let bodies = try (0..<4).map { _ in try RawConnection(port: Int(server.port)) }
        for (index, body) in bodies.enumerated() { body.send(head + String(repeating: "a", count: 100 * (index + 1))) }
        // Every byte sent is in, then a second and more passes: the bodies' rates count.
        let received = await eventually { server.connections() == ConnectionCounts(receivingBody: 4, bodyBytes: 1000) }
        XCTAssertTrue(received, "\(server.connections())")
        clock.advance(by: .milliseconds(1200))
        let next = try RawConnection(port: Int(server.port))
        next.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        XCTAssertTrue(next.read(timeout: 30, until: Self.complete).text.hasPrefix("HTTP/1.1 200"), "trickled bodies cannot lock an address out")
        XCTAssertTrue(bodies[0].read(timeout: 30).closed, "the slowest body went")
        let others = await eventually { server.connections().receivingBody == 3 }
        XCTAssertTrue(others, "the others go on: \(server.connections())")
        XCTAssertEqual(server.connections().bodyBytes, 900, "the others go on")
    }

    /// Behind a trusted proxy every connection is the proxy's: clients are told apart by the
    /// address it forwards, each with its share of requests in flight.
    func testBehindATrustedProxyClientsAreCountedByTheAddressItForwards() async throws {
        let server = try start { $0.perClientLimit = 1; $0.origin = PublicOrigin(trustProxy: true); $0.clock = ManualClock() }
        defer { server.stop() }
        func request(_ client: String) -> String { "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Forwarded-For: 203.0.113.9, \(client)\r\n\r\n" }
        // One request of client A in flight: its body is still coming.
        let busy = try RawConnection(port: Int(server.port))
        busy.send("POST /form HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Forwarded-For: 198.51.100.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n\r\nab")
        let receiving = await eventually { server.connections().receivingBody == 1 }
        XCTAssertTrue(receiving, "\(server.connections())")
        let again = try RawConnection(port: Int(server.port))
        again.send(request("198.51.100.1"))
        XCTAssertTrue(again.read(timeout: 2, until: Self.complete).text.hasPrefix("HTTP/1.1 429"), "client A's second request waits its turn")
        let other = try RawConnection(port: Int(server.port))
        other.send(request("198.51.100.2"))
        XCTAssertTrue(other.read(timeout: 2, until: Self.complete).text.hasPrefix("HTTP/1.1 200"), "client B is answered")
        busy.send("cdefghij")
        let ended = busy.read(timeout: 2, until: Self.complete).text
        XCTAssertTrue(ended.hasPrefix("HTTP/1.1 ") && !ended.hasPrefix("HTTP/1.1 429"), ended)
        // The request ends just after its answer went.
        var later = ""
        await eventually {
            guard let connection = try? RawConnection(port: Int(server.port)) else { return false }
            connection.send(request("198.51.100.1"))
            later = connection.read(timeout: 30, until: Self.complete).text
            return later.hasPrefix("HTTP/1.1 200")
        }
        XCTAssertTrue(later.hasPrefix("HTTP/1.1 200"), "once A's request ended, A is answered again: \(later)")
    }
}
