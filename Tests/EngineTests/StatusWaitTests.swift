@testable import Engine
import Basics
import Client
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
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
        let elapsed = ContinuousClock.now - start
        return (try JSONValue.parse(response.body)["ok"]?.stringValue, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                response.headers[StatusWait.header])
    }

    func testAHeldStatusIsAnsweredWhenTheLastUploadArrives() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let tus = TusClient(http: client.http, endpoint: try XCTUnwrap(created.body["tus_url"]?.stringValue))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = Data("the only file".utf8)
        let path = try directory.write("f", data: data)

        let base = client.base
        async let waiting = Self.held(base, id, wait: "15")
        try await Task.sleep(for: .milliseconds(400))
        let upload = try await tus.create(
            length: Int64(data.count), metadata: ["assembly_url": try XCTUnwrap(created.body["assembly_ssl_url"]?.stringValue), "filename": "f.txt"])
        _ = try await tus.append(to: upload.url, offset: 0, body: .file(path: path, offset: 0, length: Int64(data.count)), checksum: nil)
        let answer = try await waiting
        XCTAssertNotEqual(answer.ok, "ASSEMBLY_UPLOADING", "answered before the Assembly moved on")
        XCTAssertGreaterThan(answer.seconds, 0.3, "held until the upload")
        XCTAssertLessThan(answer.seconds, 10, "answered when the upload arrived, not at the end of the wait")
        XCTAssertEqual(answer.offered, String(StatusWait.longest))
    }

    func testAHeldStatusEndsAfterTheSecondsAskedForAndOnlyValidAsksAreHeld() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)

        let unchanged = try await Self.held(client.base, id, wait: "1")
        XCTAssertEqual(unchanged.ok, "ASSEMBLY_UPLOADING")
        XCTAssertGreaterThan(unchanged.seconds, 0.9)
        XCTAssertLessThan(unchanged.seconds, 5)
        for value in ["0", "21", "99", "-1", "abc", "", "1.5", "001"] {
            let answer = try await Self.held(client.base, id, wait: value)
            XCTAssertLessThan(answer.seconds, 0.5, "'\(value)' is not held")
        }

        let finished = try await client.create(steps: hashStep, files: [("file", "a.txt", Data("a".utf8))])
        let done = try XCTUnwrap(finished.body["assembly_id"]?.stringValue)
        _ = try await client.wait(done)
        let ended = try await Self.held(client.base, done, wait: "10")
        XCTAssertEqual(ended.ok, "ASSEMBLY_COMPLETED")
        XCTAssertLessThan(ended.seconds, 0.5, "an Assembly that has ended is answered at once")
    }

    func testStoppingAnswersHeldStatusesAtOnce() async throws {
        let server = try EngineTestServer()
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let base = client.base
        async let waiting = Self.held(base, id, wait: "20")
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        server.stop()
        _ = try? await waiting
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5), "the engine stopped without waiting out the held request")
    }
}
