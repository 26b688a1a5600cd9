import Basics
@testable import Engine
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `/http/import` against a real web server on 127.0.0.1 (allowed with `importsFromLoopback`),
/// and the addresses, protocols and sizes it refuses.
final class HTTPImportRobotTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var origin: ServerProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "origin")
        try TestImages.png(width: 40, height: 30).write(to: URL(fileURLWithPath: directory.path + "/photo.png"))
        origin = try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/EngineTests/Fixtures/origin_server.py", directory.path])
    }

    override func tearDown() {
        origin.stop()
        directory.remove()
    }

    private func url(_ path: String) -> String { "http://127.0.0.1:\(origin.port)\(path)" }

    private func run(_ steps: [String: JSONValue], loopback: Bool = true, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let server = try EngineTestServer(robotLimits: RobotLimits(importsFromLoopback: loopback))
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(steps))
        XCTAssertEqual(created.status, 200, created.body.serialized())
        return try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue), timeout: timeout)
    }

    func testImportsNamesThemAndHandsThemOn() async throws {
        let status = try await run([
            "imported": .object([
                "robot": .string("/http/import"),
                "url": .string(url("/files/photo.png") + " | " + url("/named/photo.png") + "|" + url("/to/%2Ffiles%2Fphoto.png?sig=secret")),
            ]),
            "renamed": .object(["robot": .string("/http/import"), "url": .array([.string(url("/header/X-Token"))]),
                                "force_name": .string("token.txt"), "headers": .array([.string("X-Token: abc 123")]), "result": .bool(true)]),
            "small": .object(["robot": .string("/image/resize"), "use": .string("imported"), "width": .int(20), "height": .int(15)]),
        ])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let small = try XCTUnwrap(status["results"]?["small"]?.arrayValue)
        XCTAssertEqual(small.map { $0["name"] }, ["photo.png", "report final.png", "photo.png"].map { .string($0) },
                       "named by the URL, by Content-Disposition's filename*, and by the redirect's first URL")
        XCTAssertEqual(small.first?["meta"]?["width"], .int(20))
        XCTAssertEqual(small.first?["original_name"], .string("photo.png"))
        let token = try XCTUnwrap(status["results"]?["renamed"]?.arrayValue?.first)
        XCTAssertEqual(token["name"], .string("token.txt"))
        XCTAssertEqual(token["size"], .int(7), "the custom header reached the server: 'abc 123'")
        XCTAssertEqual(token["meta"]?["import_url"], .string(url("/header/X-Token")))
        XCTAssertEqual(token["mime"], .string("text/plain"))
    }

    func testCustomHeadersGoOnlyToTheOriginTheStepNamed() async throws {
        let elsewhere = "http%3A%2F%2Flocalhost%3A\(origin.port)%2Fheader%2FX-Token"
        let status = try await run(["imported": .object([
            "robot": .string("/http/import"), "url": .array([.string(url("/to/%2Fheader%2FX-Token")), .string(url("/to/" + elsewhere))]),
            "headers": .array([.string("X-Token: abc 123")]), "force_name": .array([.string("same.txt"), .string("other.txt")]),
        ])])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let sizes = try XCTUnwrap(status["results"]?["imported"]?.arrayValue).map { $0["size"] }
        XCTAssertEqual(sizes, [.int(7), .int(0)], "kept on a redirect within the origin, dropped on one to another host")
    }

    func testLoopbackIsRefusedUnlessTheEngineAllowsIt() async throws {
        let status = try await run(["imported": .object(["robot": .string("/http/import"), "url": .string(url("/files/photo.png"))])], loopback: false)
        XCTAssertEqual(status["error"], .string("IMPORT_FILE_ERROR"), status.serialized())
        let message = status["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("127.0.0.1 is a loopback address") && message.contains("--allow-loopback-import"), message)
        // `localhost` and the unspecified address reach the machine too.
        for host in ["localhost", "0.0.0.0", "[::ffff:127.0.0.1]"] {
            let other = try await run(["imported": .object([
                "robot": .string("/http/import"), "url": .string("http://\(host):\(origin.port)/files/photo.png"),
            ])], loopback: false)
            XCTAssertEqual(other["error"], .string("IMPORT_FILE_ERROR"), host)
        }
    }

    func testRedirectsToOtherProtocolsAndPrivateAddressesFail() async throws {
        let redirects = ["file%3A%2F%2F%2Fetc%2Fpasswd": "only http and https are followed", "http%3A%2F%2F10.0.0.1%2F": "10.0.0.1 is a private address",
                         "http%3A%2F%2F169.254.169.254%2Flatest%2F": "link-local"]
        for (target, expected) in redirects {
            let status = try await run(["imported": .object(["robot": .string("/http/import"), "url": .string(url("/to/" + target))])])
            XCTAssertEqual(status["error"], .string("IMPORT_FILE_ERROR"), target)
            let message = status["message"]?.stringValue ?? ""
            XCTAssertTrue(message.lowercased().contains(expected.lowercased()), "\(target): \(message)")
        }
    }

    func testSizesStatusesAndSkippedFailures() async throws {
        let tooBig = try await run(["imported": .object([
            "robot": .string("/http/import"), "url": .string(url("/files/photo.png")), "max_file_size": .int(50),
        ])])
        XCTAssertEqual(tooBig["error"], .string("IMPORT_FILE_ERROR"))
        XCTAssertTrue(tooBig["message"]?.stringValue?.contains("larger than 50 bytes") == true, tooBig.serialized())

        let missing = try await run(["imported": .object(["robot": .string("/http/import"), "url": .string(url("/files/nothing.png?token=s3cr3t"))])])
        XCTAssertEqual(missing["error"], .string("IMPORT_FILE_ERROR"))
        let message = missing["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("nothing.png?… answered 404") && !message.contains("s3cr3t"), "the query (often a signature) is not shown: \(message)")

        let server = try EngineTestServer(robotLimits: RobotLimits(importBytes: 100, importsFromLoopback: true))
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(["imported": .object(["robot": .string("/http/import"), "url": .string(url("/files/photo.png"))])]))
        let capped = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        XCTAssertTrue(capped["message"]?.stringValue?.contains("--max-import-size") == true, "the engine's limit is named: \(capped.serialized())")

        let skipped = try await run(["imported": .object([
            "robot": .string("/http/import"), "url": .array([.string(url("/files/nothing.png")), .string(url("/files/photo.png"))]),
            "ignore_errors": .array([.string("import")]),
        ])])
        XCTAssertEqual(skipped["ok"], .string("ASSEMBLY_COMPLETED"), skipped.serialized())
        XCTAssertEqual(skipped["results"]?["imported"]?.arrayValue?.map { $0["name"] }, [.string("photo.png")])
        let ignored = try XCTUnwrap(skipped["ignored_errors"]?.arrayValue)
        XCTAssertEqual(ignored.map { $0["step"] }, [.string("imported")], "the skipped URL is reported")
        XCTAssertEqual(ignored.first?["error"], .string("IMPORT_FILE_ERROR"))
        XCTAssertTrue(ignored.first?["message"]?.stringValue?.contains("answered 404") == true, skipped.serialized())

        for (options, expected) in [
            (["url": JSONValue.string("ftp://127.0.0.1/x")], "not an http(s) URL"),
            (["url": .array((0...100).map { .string(url("/files/\($0)")) })], "at most 100"),
            (["url": .string(url("/x")), "headers": .array([.string("Bad Header: x")])], "'Name: value'"),
            (["url": .string(url("/x")), "headers": .array([.string("Host: metadata.internal")])], "may not set 'Host'"),
            (["url": .string(url("/x")), "headers": .array([.string("transfer-encoding: chunked")])], "may not set 'transfer-encoding'"),
            ([:], "'url' must give"),
        ] {
            let status = try await run(["imported": .object(options.merging(["robot": .string("/http/import")]) { $1 })])
            XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
            XCTAssertTrue(status["message"]?.stringValue?.contains(expected) == true, status.serialized())
        }
    }

    func testCancelingTheAssemblyStopsAnImportAtOnce() async throws {
        let server = try EngineTestServer(robotLimits: RobotLimits(importsFromLoopback: true))
        defer { server.stop() }
        let client = EngineClient(server: server)
        let slow = (0..<20).map { JSONValue.string(url("/slow?copy=\($0)")) }
        let created = try await client.create(steps: .object(["imported": .object(["robot": .string("/http/import"), "url": .array(slow)])]))
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        // Canceled once the first imports are under way.
        let importing = await eventually(within: .seconds(10)) { FileManager.default.fileExists(atPath: self.directory.path + "/requests.log") }
        XCTAssertTrue(importing)
        let started = ContinuousClock.now
        let canceled = try await client.http.send(HTTPRequest(method: "DELETE", url: client.base + "/assemblies/" + id))
        XCTAssertEqual(canceled.status, 200)
        let status = try await client.wait(id, timeout: .seconds(10))
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_CANCELED"), status.serialized())
        // The transfer is dropped: a folder for the Assembly's results is gone or empty soon after.
        let results = server.data.path + "/results/" + id
        let gone = await eventually(within: .seconds(5)) { !FileManager.default.fileExists(atPath: results) }
        XCTAssertTrue(gone, "the partial import is removed")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        // Once the Assembly has left its step, no import of it can start.
        let left = await eventually { server.engine.assemblyLoad == (0, 0) }
        XCTAssertTrue(left, "the canceled Assembly leaves its step")
        let asked = ((try? String(contentsOfFile: directory.path + "/requests.log", encoding: .utf8)) ?? "").split(separator: "\n").count
        XCTAssertLessThanOrEqual(asked, ProcessInfo.processInfo.activeProcessorCount * 2, "URLs not started before the cancel are never asked for")
    }
}
