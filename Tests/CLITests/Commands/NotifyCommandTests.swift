import Basics
import Crypto
import EngineTestSupport
import Engine
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `pipeline notify verify` against the official SDKs' vector and the forms receivers meet;
/// `pipeline notify receive` end to end: the engine notifies a real receiver, which collects.
final class NotifyCommandTests: XCTestCase {
    /// node-sdk's published vector: secret `foo_secret`, this payload, this signature.
    private let payload = #"{"ok":"ASSEMBLY_COMPLETED"}"#
    private let signature = "sha384:bf26800c5256b38bbf9375c76894d5b649751903973f99d0f036c8e52f6cda287bed711b73c21dbde4d4df6c8fc540a1"

    private func verify(_ body: String, contentType: String? = nil, secret: String = "foo_secret") async throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = try TemporaryDirectory(prefix: "notify-verify")
        defer { folder.remove() }
        try folder.write("body", body)
        return await CLIHarness.run(["notify", "verify", folder.path + "/body"] + (contentType.map { ["--content-type", $0] } ?? []),
                                    environment: ["TRANSLOADIT_SECRET": secret])
    }

    func testVerifyTakesEveryFormAReceiverMeetsAndRefusesAForgery() async throws {
        let multipart = "--b0undary\r\nContent-Disposition: form-data; name=\"transloadit\"\r\n\r\n\(payload)\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"signature\"\r\n\r\n\(signature)\r\n--b0undary--\r\n"
        let good = try await verify(multipart)
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(good.stdout, "valid: Assembly ? ASSEMBLY_COMPLETED\n")
        let withType = try await verify("a preamble, which MIME allows\r\n" + multipart, contentType: "multipart/form-data; boundary=\"b0undary\"")
        XCTAssertEqual(withType.status, 0, "the boundary from --content-type when the body does not start with it: \(withType.stderr)")
        let encoded = "transloadit=" + (payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&signature=" + (signature.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        // The service's older form: bare hex of an HMAC-SHA1.
        let sha1 = Hex.encode(KeyedHash.hmac(.sha1, payload, key: "foo_secret"))
        for body in [encoded, JSONValue.object(["transloadit": .string(payload), "signature": .string(signature)]).serialized(),
                     JSONValue.object(["transloadit": .string(payload), "signature": .string(sha1)]).serialized()] {
            let checked = try await verify(body)
            XCTAssertEqual(checked.status, 0, "\(body): \(checked.stderr)")
        }

        let forged = try await verify(multipart.replacingOccurrences(of: "COMPLETED", with: "CANCELED"))
        XCTAssertEqual(forged.status, 1)
        XCTAssertTrue(forged.stderr.contains("does not match the Auth Secret"), forged.stderr)
        let wrongSecret = try await verify(multipart, secret: "not-foo")
        XCTAssertEqual(wrongSecret.status, 1)
        XCTAssertFalse(wrongSecret.stderr.contains("not-foo"), "the secret is never said")
        let nothing = try await verify("hello")
        XCTAssertTrue(nothing.stderr.contains("holds no notification"), nothing.stderr)
        let huge = try await verify(String(repeating: "x", count: 9 << 20))
        XCTAssertTrue(huge.stderr.contains("more than any notification"), huge.stderr)
    }

    /// A forged `transloadit` first and the genuine signed one last (or two signatures): a receiver
    /// that takes the first field would act on the forgery, so the body is refused in every form.
    func testVerifyRefusesARepeatedTransloaditOrSignatureField() async throws {
        let forged = #"{"ok":"ASSEMBLY_COMPLETED","assembly_id":"forged"}"#
        let part = { (name: String, value: String) in "--b0undary\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let bodies = [
            part("transloadit", forged) + part("transloadit", payload) + part("signature", signature) + "--b0undary--\r\n",
            part("transloadit", payload) + part("signature", "sha384:00") + part("signature", signature) + "--b0undary--\r\n",
            "transloadit=\(escape(forged))&transloadit=\(escape(payload))&signature=\(escape(signature))",
        ]
        for body in bodies {
            let checked = try await verify(body)
            XCTAssertEqual(checked.status, 1, body)
            XCTAssertTrue(checked.stderr.contains("more than one"), checked.stderr)
            XCTAssertEqual(checked.stdout, "")
        }
    }

    /// A forged `transloadit` part whose name a loose parser misreads, first, then the genuine signed
    /// fields: each is seen as a second `transloadit` (or a part of doubtful name) and refused.
    func testVerifyRefusesAForgedFieldHiddenFromTheNameParsing() async throws {
        let forged = #"{"ok":"ASSEMBLY_COMPLETED","assembly_id":"forged"}"#
        let genuine = "--b0undary\r\nContent-Disposition: form-data; name=\"transloadit\"\r\n\r\n\(payload)\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"signature\"\r\n\r\n\(signature)\r\n--b0undary--\r\n"
        let repeated = [
            "Content-Disposition: form-data; dummyname=\"z\"; name=\"transloadit\"",
            "Content-Disposition: form-data; filename=\"z\"; name=\"transloadit\"",
            "X-Note: name=\"comment\"\r\nContent-Disposition: form-data; name=\"transloadit\"",
            "content-disposition: form-data; name=transloadit",
            "Content-Disposition: form-data; name = \"transloadit\"",
            "Content-Disposition: form-data; name*=UTF-8''transloadit",
            "Content-Disposition: form-data; name*=utf-8'en'trans%6Coadit",
            "Content-Disposition: form-data; filename=\"a;b\\\";c\"; NAME=\"transloadit\"",
        ]
        let ambiguous = [
            "Content-Disposition: form-data; name=\"comment\"; name=\"transloadit\"",
            "Content-Disposition: form-data; name=\"transloadit\"; name*=UTF-8''comment",
            "Content-Disposition: form-data; name=\"comment\"\r\nContent-Disposition: form-data; name=\"transloadit\"",
            "Content-Disposition: form-data; name=\"transloadit",
            "Content-Disposition: form-data; name=\"trans\"loadit\"",
            "Content-Disposition: form-data; name",
            "Content-Disposition: form-data;\r\n name=\"transloadit\"",
            "Content-Disposition: form-data; name*=UTF-8''trans%6",
        ]
        let part = { (headers: String) in "--b0undary\r\n\(headers)\r\n\r\n\(forged)\r\n" }
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let urlencoded = "x=1;transloadit=\(escape(forged))&transloadit=\(escape(payload))&signature=\(escape(signature))"
        for (body, says) in repeated.map({ (part($0) + genuine, "more than one transloadit field") })
            + ambiguous.map({ (part($0) + genuine, "names it twice") }) + [(urlencoded, "more than one transloadit field")] {
            let checked = try await verify(body)
            XCTAssertEqual(checked.status, 1, body)
            XCTAssertTrue(checked.stderr.contains(says), "\(body): \(checked.stderr)")
            XCTAssertEqual(checked.stdout, "")
        }
        // The same header forms naming the genuine fields, once each, still verify; so does a LF-only body.
        let valid = [
            "--b0undary\r\ncontent-disposition: form-data; name=transloadit\r\nContent-Type: text/plain\r\n\r\n\(payload)\r\n"
                + "--b0undary\r\nContent-Disposition: form-data; filename=\"x; name=\\\"y\\\"\"; name*=UTF-8''sig%6Eature\r\n\r\n\(signature)\r\n--b0undary--\r\n",
            "--b0undary\nContent-Disposition: form-data ; name = \"transloadit\" ;\n\n\(payload)\n"
                + "--b0undary\nContent-Disposition: form-data; name=\"signature\"\n\n\(signature)\n--b0undary--\n",
            "x=1;transloadit=\(escape(payload));signature=\(escape(signature))",
        ]
        for body in valid {
            let checked = try await verify(body)
            XCTAssertEqual(checked.status, 0, "\(body): \(checked.stderr)")
        }
    }

    /// A free port on 127.0.0.1 for the receiver (the manifest names it before the receiver starts).
    private func freePort() throws -> Int {
        let probe = try ServerProcess("/usr/bin/env", ["python3", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print('PORT', s.getsockname()[1], flush=True)"])
        defer { probe.stop() }
        return probe.port
    }

    func testReceiveWaitsForEveryAssemblyRefusesForgeriesAndCollects() async throws {
        let secret = "receive-secret-\(UInt32.random(in: 0...UInt32.max))"
        // The receiver starts after the run: the engine's first attempts find nobody and are tried
        // again once the test moves the engine's clock, after its own requests were answered.
        let clock = ManualClock()
        let server = try EngineTestServer(
            credentials: ("test-key", secret), robotLimits: RobotLimits(importsFromLoopback: true),
            notifyRetryDelays: Array(repeating: .seconds(2), count: 10), clock: clock)
        defer { server.stop() }
        let port = try freePort()
        let directory = try TestProject.hashing(
            prefix: "notify-receive", endpoint: "http://127.0.0.1:\(server.port)", files: ["a.bin": Data(repeating: 1, count: 3000), "b.bin": Data(repeating: 2, count: 2000)],
            batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        try (try String(contentsOfFile: manifest, encoding: .utf8) + "    notify_url: http://127.0.0.1:\(port)/hook\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        let environment = ["TRANSLOADIT_SECRET": secret]
        let left = await CLIHarness.run(["run", manifest, "--no-wait"], environment: environment)
        XCTAssertEqual(left.status, 0, left.stderr)
        let waiting = await clock.waitForSleepers(2)
        XCTAssertTrue(waiting, "both notifications found nobody and wait to be tried again")

        let receiving = Task { await CLIHarness.run(["notify", "receive", manifest, "--port", String(port), "--timeout", "1m"], environment: environment) }
        // A forged notification while it waits: refused, and counted for nothing.
        let forged = try await postForged(to: "http://127.0.0.1:\(port)/hook")
        XCTAssertEqual(forged, 403)
        // A status of thousands of results (2 MiB), genuine, of an Assembly this run does not wait for.
        let large = #"{"ok":"ASSEMBLY_COMPLETED","assembly_id":"\#(String(repeating: "e", count: 32))","message":"\#(String(repeating: "x", count: 2 << 20))"}"#
        let signed = "transloadit=" + (large.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            + "&signature=" + NotificationSignatureText.sign(large, secret: secret)
        let answer = try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(port)/hook", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(signed.utf8))))
        XCTAssertEqual(answer.status, 200, answer.bodyText(limit: 200))
        clock.advance(by: .seconds(2))
        let received = await receiving.value
        XCTAssertEqual(received.status, 0, received.stderr)
        XCTAssertTrue(received.stderr.contains("refused a notification whose signature does not match"), received.stderr)
        XCTAssertTrue(received.stderr.contains("(2 of 2 ended)"), received.stderr)
        XCTAssertTrue(received.stdout.hasPrefix("Run: 2 completed"), received.stdout)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        XCTAssertEqual((results["assemblies"]?.arrayValue ?? []).compactMap { $0["status"]?.stringValue }, ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"])
        XCTAssertEqual(server.requests.filter { $0.hasPrefix("POST /assemblies") }.count, 2, "nothing was created twice")
        // Every notification was answered before the receiver went: none is left to retry.
        for id in (results["assemblies"]?.arrayValue ?? []).compactMap({ $0["assembly_id"]?.stringValue }) {
            let status = try JSONValue.parse(try await HTTPClient().send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/assemblies/\(id)")).body)
            XCTAssertEqual(status["notify_status"], .string("successful"), status.serialized())
        }
    }

    /// Notifications that never come (a notify_url nobody listens on): the receiver asks the
    /// service now and then, and collects when it says every Assembly ended. It asks the endpoint
    /// only, whatever host the results file names for an Assembly.
    func testReceiveAsksTheServiceWhenNotificationsNeverCome() async throws {
        let secret = "receive-secret-\(UInt32.random(in: 0...UInt32.max))"
        let server = try EngineTestServer(credentials: ("test-key", secret), robotLimits: RobotLimits(importsFromLoopback: true), notifyRetryDelays: [])
        defer { server.stop() }
        let foreign = try EngineTestServer()
        defer { foreign.stop() }
        let (nobody, port) = (try freePort(), try freePort())
        let directory = try TestProject.hashing(
            prefix: "notify-never", endpoint: "http://127.0.0.1:\(server.port)", files: ["a.bin": Data(repeating: 1, count: 3000)])
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        try (try String(contentsOfFile: manifest, encoding: .utf8) + "    notify_url: http://127.0.0.1:\(nobody)/hook\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        let environment = ["TRANSLOADIT_SECRET": secret]
        let left = await CLIHarness.run(["run", manifest, "--no-wait"], environment: environment)
        XCTAssertEqual(left.status, 0, left.stderr)
        let resultsPath = directory.path + "/results.json"
        let results = try String(contentsOfFile: resultsPath, encoding: .utf8)
        let forged = results.replacingOccurrences(of: "127.0.0.1:\(server.port)/assemblies/", with: "127.0.0.1:\(foreign.port)/assemblies/")
        XCTAssertNotEqual(forged, results)
        try forged.write(toFile: resultsPath, atomically: true, encoding: .utf8)
        let received = await CLIHarness.run(["notify", "receive", manifest, "--port", String(port), "--ask-every", "1s", "--timeout", "1m"], environment: environment)
        XCTAssertEqual(received.status, 0, received.stderr)
        XCTAssertTrue(received.stderr.contains("as the service says (1 of 1 ended)"), received.stderr)
        XCTAssertTrue(received.stdout.hasPrefix("Run: 1 completed"), received.stdout)
        XCTAssertEqual(foreign.requests, [], "the host the results file names is never asked")
    }

    /// POSTs a notification signed with the wrong secret once the receiver listens; its answer.
    private func postForged(to url: String) async throws -> Int {
        let body = "transloadit=%7B%22ok%22%3A%22ASSEMBLY_COMPLETED%22%2C%22assembly_id%22%3A%22x%22%7D&signature=sha384%3A00"
        let request = HTTPRequest(method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(body.utf8)))
        if let status = await firstAnswer({ try? await HTTPClient().send(request).status }) { return status }  // refused until it listens
        return try await HTTPClient().send(request).status
    }
}

/// The engine's notification signature, URL-encoded for a form (the `:` escaped).
private enum NotificationSignatureText {
    static func sign(_ payload: String, secret: String) -> String {
        "sha384%3A" + Hex.encode(KeyedHash.hmac(.sha384, payload, key: secret))
    }
}
