import APIClients
import Basics
import Engine
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import Wire
import XCTest

/// The engine announces each Assembly's end to its `notify_url` as the service does, to a real
/// receiver on 127.0.0.1 that checks the signature with its own HMAC.
final class NotificationTests: XCTestCase {
    private let credentials = (key: "notify-key", secret: "notify-secret-\(UInt32.random(in: 0...UInt32.max))")
    private let hashStep: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])

    /// A receiver answering `statuses` in turn; its log file holds one JSON object per request.
    private func receiver(_ statuses: [Int], log: TemporaryDirectory) throws -> ServerProcess {
        try ServerProcess("/usr/bin/env", [
            "python3", PackageRoot.path + "/Tests/EngineTests/Fixtures/notify_receiver.py", log.path + "/requests.jsonl", credentials.secret,
            statuses.map(String.init).joined(separator: ","),
        ])
    }

    private func received(_ log: TemporaryDirectory) -> [JSONValue] {
        let text = (try? String(contentsOfFile: log.path + "/requests.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }
    }

    private func create(_ server: EngineTestServer, notify url: String, payload: [String] = []) async throws -> String {
        var params: [String: JSONValue] = ["steps": hashStep, "notify_url": .string(url)]
        if !payload.isEmpty { params["notification_payload"] = .array(payload.map(JSONValue.string)) }
        let text = AuthParams.prepare(.object(params), key: credentials.key, lifetime: .seconds(600)).serialized()
        let created = try await EngineClient(server: server, credentials: credentials)
            .create(steps: hashStep, files: [("file", "a.txt", Data("notified".utf8))], params: text)
        return try XCTUnwrap(created.body["assembly_id"]?.stringValue, created.body.serialized())
    }

    /// Polls the status until `notify_status` is no longer pending.
    private func notified(_ server: EngineTestServer, _ id: String) async throws -> JSONValue {
        let client = EngineClient(server: server, credentials: credentials)
        let settled = try await firstAnswer(within: .seconds(30)) { () async throws -> JSONValue? in
            let status = try await client.status(id)
            return status["notify_status"]?.stringValue.map { $0 != "pending" } == true ? status : nil
        }
        if let settled { return settled }
        return try await client.status(id)
    }

    func testAFailedAttemptIsTriedAgainAndTheReceiverGetsTheSignedStatus() async throws {
        let log = try TemporaryDirectory(prefix: "notify-log")
        defer { log.remove() }
        let receiver = try receiver([500, 200], log: log)
        defer { receiver.stop() }
        let server = try EngineTestServer(
            credentials: credentials, robotLimits: RobotLimits(importsFromLoopback: true), notifyRetryDelays: [.milliseconds(100), .milliseconds(100)])
        defer { server.stop() }
        let id = try await create(server, notify: receiver.url("/hook?token=abc"))
        let status = try await notified(server, id)
        XCTAssertEqual(status["notify_status"], .string("successful"), status.serialized())
        XCTAssertEqual(status["notify_response_code"], .int(200))
        XCTAssertEqual(status["notify_response_data"], .string("ok"))
        XCTAssertNotNil(status["notify_start"]?.stringValue)
        let requests = received(log)
        XCTAssertEqual(requests.map { $0["status"] }, [.int(500), .int(200)], "one retry after the failure")
        for request in requests {
            XCTAssertEqual(request["fields"], .array([.string("signature"), .string("transloadit")]))
            XCTAssertEqual(request["valid"], .bool(true), "the receiver's own HMAC-SHA384 matches")
            XCTAssertEqual(request["transloadit"]?["ok"], .string(AssemblyStatusCode.completed.rawValue))
            XCTAssertEqual(request["transloadit"]?["assembly_id"], .string(id))
            XCTAssertEqual(request["transloadit"]?["results"]?["hash"]?.arrayValue?.count, 1)
        }
    }

    func testThePayloadIsTrimmedAsAskedAndEveryAttemptFailingIsGivenUp() async throws {
        let log = try TemporaryDirectory(prefix: "notify-log")
        defer { log.remove() }
        let receiver = try receiver([503], log: log)
        defer { receiver.stop() }
        let server = try EngineTestServer(
            credentials: credentials, robotLimits: RobotLimits(importsFromLoopback: true), notifyRetryDelays: [.milliseconds(50), .milliseconds(50)])
        defer { server.stop() }
        let id = try await create(server, notify: receiver.url("/hook"), payload: ["without_results", "without_params"])
        let status = try await notified(server, id)
        XCTAssertEqual(status["notify_status"], .string("failed"), status.serialized())
        XCTAssertEqual(status["notify_response_code"], .int(503))
        XCTAssertEqual(received(log).count, 3, "the first attempt and two retries, then no more")
        let sent = try XCTUnwrap(received(log).first?["transloadit"])
        XCTAssertEqual(sent["results"], .object([:]))
        XCTAssertNil(sent["params"])
        XCTAssertEqual(sent["uploads"]?.arrayValue?.count, 1)
    }

    func testALoopbackAddressIsRefusedUnlessAllowed() async throws {
        let log = try TemporaryDirectory(prefix: "notify-log")
        defer { log.remove() }
        let receiver = try receiver([200], log: log)
        defer { receiver.stop() }
        let server = try EngineTestServer(credentials: credentials, notifyRetryDelays: [])
        defer { server.stop() }
        let id = try await create(server, notify: receiver.url("/hook"))
        let status = try await notified(server, id)
        XCTAssertEqual(status["notify_status"], .string("failed"), status.serialized())
        XCTAssertTrue(status["notify_error"]?.stringValue?.contains("loopback") ?? false, status.serialized())
        XCTAssertEqual(received(log).count, 0)
    }

    /// An engine stopped before it could deliver delivers when it starts again.
    func testAPendingNotificationIsDeliveredAfterARestart() async throws {
        let log = try TemporaryDirectory(prefix: "notify-log")
        defer { log.remove() }
        let data = try TemporaryDirectory(prefix: "notify-restart")
        defer { data.remove() }
        let receiver = try receiver([500, 200], log: log)
        defer { receiver.stop() }
        var server = try EngineTestServer(
            data: data, credentials: credentials, robotLimits: RobotLimits(importsFromLoopback: true), notifyRetryDelays: [.seconds(60)])
        let id = try await create(server, notify: receiver.url("/hook"))
        await eventually(within: .seconds(30)) { !received(log).isEmpty }
        server.stop(keepData: true)  // during the minute's wait for the retry
        server = try EngineTestServer(data: data, credentials: credentials, robotLimits: RobotLimits(importsFromLoopback: true))
        defer { server.stop(keepData: true) }
        let status = try await notified(server, id)
        XCTAssertEqual(status["notify_status"], .string("successful"), status.serialized())
        XCTAssertEqual(received(log).map { $0["status"] }, [.int(500), .int(200)])
    }

    /// `POST /assembly_notifications/{id}/replay`: the end announced again, to a new notify_url
    /// when the signed params give one; one still going has nothing to announce.
    func testANotificationIsReplayedToANewAddress() async throws {
        let log = try TemporaryDirectory(prefix: "notify-log")
        defer { log.remove() }
        let (first, second) = (try receiver([200], log: log), try receiver([200], log: log))
        defer { first.stop(); second.stop() }
        let server = try EngineTestServer(credentials: credentials, robotLimits: RobotLimits(importsFromLoopback: true), notifyRetryDelays: [])
        defer { server.stop() }
        let id = try await create(server, notify: first.url("/one"))
        _ = try await notified(server, id)
        let replayed = try await post("/assembly_notifications/\(id)/replay", params: .object(["notify_url": .string(second.url("/two"))]), server: server)
        XCTAssertEqual(replayed.status, 200, replayed.body.serialized())
        XCTAssertEqual(replayed.body["ok"], .string("ASSEMBLY_NOTIFICATION_REPLAYED"))
        await eventually { received(log).count >= 2 }
        XCTAssertEqual(received(log).count, 2)
        XCTAssertEqual(received(log).last?["transloadit"]?["notify_url"], .string(second.url("/two")))

        let going = try await EngineClient(server: server, credentials: credentials).create(steps: hashStep, expectedUploads: 1)
        let early = try await post("/assembly_notifications/\(try XCTUnwrap(going.body["assembly_id"]?.stringValue))/replay", params: .object([:]), server: server)
        XCTAssertEqual(early.body["error"], .string("ASSEMBLY_CANNOT_BE_REPLAYED"), early.body.serialized())
    }

    private func post(_ path: String, params: JSONValue, server: EngineTestServer) async throws -> (status: Int, body: JSONValue) {
        let text = AuthParams.prepare(params, key: credentials.key, lifetime: .seconds(600)).serialized()
        let body = "params=" + AssemblyClient.escape(text) + "&signature=" + AssemblyClient.escape(Signature.sign(text, secret: credentials.secret))
        let response = try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)" + path, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(body.utf8))))
        return (response.status, try JSONValue.parse(response.body))
    }
}
