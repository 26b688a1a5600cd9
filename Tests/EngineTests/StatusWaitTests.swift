@testable import Engine
import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import Synchronization
import XCTest

/// A status request may be held until its Assembly moves on (`StatusWait`): answered the moment
/// the phase changes, after the seconds asked for when it does not, at once for an Assembly that
/// has ended or a value out of range, and at once for every held request when the engine stops.
final class StatusWaitTests: XCTestCase {
    private let hashStep: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])

    /// Asks for the status of `id` at `base`, held up to `wait`.
    private static func held(_ base: String, _ id: String, wait: String) async throws -> (ok: String?, seconds: Double, offered: String?) {
        let start = ContinuousClock.now
        let response = try await HTTPClient().send(HTTPRequest(
            method: "GET", url: base + "/assemblies/" + id, headers: [(StatusWait.header, wait)], timeouts: HTTPTimeouts(total: .seconds(60))))
        return (try JSONValue.parse(response.body)["ok"]?.stringValue, (ContinuousClock.now - start).inSeconds, response.headers[StatusWait.header])
    }

    /// An engine with an Assembly that waits for one tus upload: its creation answer and id.
    private func waitingAssembly(clock: any MonotonicClock = SystemClock()) async throws -> (server: EngineTestServer, client: EngineClient, created: JSONValue, id: String) {
        let server = try EngineTestServer(clock: clock)
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 1).body
        return (server, client, created, try XCTUnwrap(created["assembly_id"]?.stringValue))
    }

    func testAHeldStatusIsAnsweredWhenTheLastUploadArrives() async throws {
        let (server, client, created, id) = try await waitingAssembly()
        defer { server.stop() }
        let tus = TusClient(http: client.http, endpoint: try XCTUnwrap(created["tus_url"]?.stringValue))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = Data("the only file".utf8)
        let path = try directory.write("f", data: data)

        let base = client.base
        async let waiting = Self.held(base, id, wait: "15")
        let held = await eventually { server.engine.heldStatusRequests == 1 }
        XCTAssertTrue(held, "the status request is held")
        let upload = try await tus.create(
            length: Int64(data.count), metadata: ["assembly_url": try XCTUnwrap(created["assembly_ssl_url"]?.stringValue), "filename": "f.txt"])
        _ = try await tus.append(to: upload.url, offset: 0, body: .file(path: path, offset: 0, length: Int64(data.count)), checksum: nil)
        let answer = try await waiting
        XCTAssertNotEqual(answer.ok, "ASSEMBLY_UPLOADING", "answered before the Assembly moved on")
        XCTAssertLessThan(answer.seconds, 10, "answered when the upload arrived, not at the end of the wait")
        XCTAssertEqual(answer.offered, String(StatusWait.longest))
    }

    /// The engine's clock stands still unless the test moves it: a request it holds is answered
    /// only once the clock passes the seconds asked for, and one it does not hold at once.
    func testAHeldStatusEndsAfterTheSecondsAskedForAndOnlyValidAsksAreHeld() async throws {
        let clock = ManualClock()
        let (server, client, _, id) = try await waitingAssembly(clock: clock)
        defer { server.stop() }

        for value in ["1", " 1\t"] {
            async let answer = Self.held(client.base, id, wait: value)
            let held = await eventually { server.engine.heldStatusRequests == 1 }
            XCTAssertTrue(held, "'\(value)' is held (spaces and tabs around the value are not part of it)")
            clock.advance(by: .milliseconds(999))
            XCTAssertEqual(server.engine.heldStatusRequests, 1, "not answered before the second")
            clock.advance(by: .milliseconds(1))
            let unchanged = try await answer
            XCTAssertEqual(unchanged.ok, "ASSEMBLY_UPLOADING")
        }
        for value in ["0", "21", "99", "-1", "+5", "5 5", "abc", "", "1.5", "001"] {
            // Held, it would wait for a clock that does not move.
            let answer = try await Self.held(client.base, id, wait: value)
            XCTAssertEqual(answer.ok, "ASSEMBLY_UPLOADING", "'\(value)' is not held")
        }

        let finished = try await client.create(steps: hashStep, files: [("file", "a.txt", Data("a".utf8))])
        let done = try XCTUnwrap(finished.body["assembly_id"]?.stringValue)
        _ = try await client.wait(done)
        let ended = try await Self.held(client.base, done, wait: "10")
        XCTAssertEqual(ended.ok, "ASSEMBLY_COMPLETED", "an Assembly that has ended is answered at once, not after the 10 s asked for")
    }

    func testAtMostSoManyAreHeldAndOneWhoseClientWentAwayEnds() throws {
        let data = try TemporaryDirectory(prefix: "status-wait-store")
        defer { data.remove() }
        let store = try AssemblyStore(directory: data.path + "/assemblies")
        let id = String(repeating: "b", count: 32)
        XCTAssertTrue(try store.insert(AssemblyRecord(
            id: id, origin: "http://127.0.0.1:1", params: "{}", steps: hashStep, fields: [:], notifyURL: nil,
            expectedTusUploads: 1, uploads: [], created: Date(), clientAgent: nil)))
        let gone = Mutex(false)
        let ended = DispatchGroup()
        for _ in 0..<AssemblyStore.mostHeld {
            ended.enter()
            Thread {
                _ = store.waitForChange(of: id, from: .uploading, until: store.clock.now + .seconds(60), clientGone: { gone.withLock { $0 } })
                ended.leave()
            }.start()
        }
        // Once all of them are held (however slowly a loaded machine starts threads), one more
        // is answered at once: well before the minute a held one would take.
        eventuallyBlocking(within: .seconds(30)) { store.heldCount >= AssemblyStore.mostHeld }
        XCTAssertEqual(store.heldCount, AssemblyStore.mostHeld)
        let start = Date()
        _ = store.waitForChange(of: id, from: .uploading, until: store.clock.now + .seconds(60), clientGone: { false })
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "one more than the most held is answered at once")
        gone.withLock { $0 = true }
        XCTAssertEqual(ended.wait(timeout: .now() + 20), .success, "held requests whose clients went away end (within a slice), not after the minute")
    }

    func testStoppingAnswersHeldStatusesAtOnce() async throws {
        let (server, client, _, id) = try await waitingAssembly()
        let base = client.base
        async let waiting = Self.held(base, id, wait: "20")
        await eventually(within: .seconds(10)) { server.engine.heldStatusRequests > 0 }
        let start = ContinuousClock.now
        server.stop()
        let answer = try await waiting
        XCTAssertEqual(answer.ok, "ASSEMBLY_UPLOADING", "the held request was answered, not dropped")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5), "the engine stopped without waiting out the held request")
    }
}
