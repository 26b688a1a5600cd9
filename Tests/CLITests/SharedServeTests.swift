import Basics
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `pipeline serve --state … --store …` as a user meets it: a half-given setup and an unreachable
/// database refused with a reason (never a password), and an old engine's data folder moved in
/// with `--move-from`, then served, files and all, by a shared engine.
final class SharedServeTests: S3ServerTestCase {
    private var environment: [String: String] { ["AWS_ACCESS_KEY_ID": S3TestServer.key, "AWS_SECRET_ACCESS_KEY": S3TestServer.secret] }

    private func store() throws -> String { "s3://\(S3TestServer.bucket)/moved?endpoint=\(try s3.host)" }

    func testAHalfGivenOrUnreachableSetupIsRefusedWithItsReason() async throws {
        let data = try TemporaryDirectory(prefix: "shared-refusals")
        defer { data.remove() }
        let alone = await CLIHarness.run(["serve", "--data-dir", data.path, "--state", "postgres://u@127.0.0.1:1/db"])
        XCTAssertEqual(alone.status, 64, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("--state and --store go together"), alone.stderr)
        let keyless = await CLIHarness.run(["serve", "--data-dir", data.path, "--state", "postgres://u@127.0.0.1:1/db", "--store", try store()], environment: ["AWS_ACCESS_KEY_ID": ""])
        XCTAssertEqual(keyless.status, 1)
        XCTAssertTrue(keyless.stderr.contains("$AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY"), keyless.stderr)
        let closed = try NginxProxy.freePort()
        let unreachable = await CLIHarness.run(
            ["serve", "--port", "0", "--data-dir", data.path, "--state", "postgres://engine:hunter2-secret@127.0.0.1:\(closed)/pipeline", "--store", try store()],
            environment: environment)
        XCTAssertEqual(unreachable.status, 1)
        XCTAssertTrue(unreachable.stderr.contains("postgres://engine:***@127.0.0.1:\(closed)/pipeline"), unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("Is the server running") || unreachable.stderr.contains("is Postgres running"), unreachable.stderr)
        XCTAssertFalse(unreachable.stderr.contains("hunter2"), "the password is never shown")
        let wrong = await CLIHarness.run(["serve", "--data-dir", data.path, "--state", "mysql://db", "--store", try store()], environment: environment)
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("--state:"), wrong.stderr)
    }

    func testADataFolderMovedInIsServedBySharedEngines() async throws {
        let postgres = try PostgresTestServer()
        defer { postgres.stop() }
        let database = try postgres.makeDatabase("moved")
        let old = try TemporaryDirectory(prefix: "shared-old")
        defer { old.remove() }
        // An engine on its own folder runs a project's Assembly.
        let single = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", old.path + "/engine", "--quiet"], errors: old.path + "/single.log")
        let project = try TemporaryDirectory(prefix: "shared-project")
        defer { project.remove() }
        try project.write("files/notes.txt", "what moves must stay whole")
        try project.write("pipeline.yml", """
            version: 1
            endpoint: \(single.url(""))
            auth:
              key: local
            assemblies:
              notes:
                inputs: ["files/*.txt"]
                steps:
                  hashed: {robot: /file/hash, use: ":original", algorithm: sha256}
            """)
        let run = await CLIHarness.run(["run", project.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unused-secret"])
        single.stop()
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        let id = try XCTUnwrap(results["assemblies"]?.arrayValue?.first?["assembly_id"]?.stringValue)

        let shared = ["--state", database, "--store", try store()]
        let moved = await CLIHarness.run(["serve", "--data-dir", old.path + "/copies", "--move-from", old.path + "/engine"] + shared, environment: environment)
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertTrue((moved.stdout + moved.stderr).contains("moved 1 Assemblies (0 there already), 2 files"), moved.stdout + moved.stderr)
        let again = await CLIHarness.run(["serve", "--data-dir", old.path + "/copies", "--move-from", old.path + "/engine"] + shared, environment: environment)
        XCTAssertTrue((again.stdout + again.stderr).contains("moved 0 Assemblies (1 there already)"), "a move runs again safely: \(again.stdout + again.stderr)")

        // A shared engine that never saw the folder serves the Assembly and its file.
        let fresh = try TemporaryDirectory(prefix: "shared-fresh")
        defer { fresh.remove() }
        let engine = try ServerProcess(
            ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", fresh.path, "--quiet"] + shared, environment: environment, errors: fresh.path + "/../shared-\(UUID().uuidString).log")
        defer { engine.stop() }
        let status = try JSONValue.parse(try await fetch(engine.url("/assemblies/\(id)")))
        XCTAssertEqual(status["ok"]?.stringValue, "ASSEMBLY_COMPLETED")
        let result = try XCTUnwrap(status["results"]?["hashed"]?.arrayValue?.first)
        let body = try await fetch(try XCTUnwrap(result["ssl_url"]?.stringValue ?? result["url"]?.stringValue))
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "what moves must stay whole")
        XCTAssertEqual(result["md5hash"]?.stringValue?.count, 32)
    }

    func testALargePatchRefusedByItsChecksumKeepsNoneAndThenOneStoredKeepsItsBytes() async throws {
        let postgres = try PostgresTestServer()
        defer { postgres.stop() }
        let database = try postgres.makeDatabase("streamed")
        let folder = try TemporaryDirectory(prefix: "shared-streamed")
        defer { folder.remove() }
        let engine = try ServerProcess(
            ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", folder.path + "/engine", "--quiet", "--state", database, "--store", try store()],
            environment: environment, errors: folder.path + "/serve.log")
        defer { engine.stop() }
        // 23 MiB + 7 bytes: four whole 5 MiB parts and a tail.
        var bytes = [UInt8](repeating: 0, count: 23 << 20 + 7)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
        let file = try folder.write("big.bin", data: Data(bytes))
        let http = HTTPClient()
        let tus = [("Tus-Resumable", "1.0.0")]
        let created = try await http.send(HTTPRequest(method: "POST", url: engine.url("/resumable/files/"), headers: tus + [("Upload-Length", String(bytes.count))]))
        XCTAssertEqual(created.status, 201)
        let location = try XCTUnwrap(created.headers["Location"])
        let patch = tus + [("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", "0")]
        let body = HTTPRequest.Body.file(path: file, offset: 0, length: Int64(bytes.count))
        // A wrong checksum: none of the body counts.
        let refused = try await http.send(HTTPRequest(method: "PATCH", url: location, headers: patch + [("Upload-Checksum", "sha1 " + Data(repeating: 1, count: 20).base64EncodedString())], body: body))
        XCTAssertEqual(refused.status, 460)
        let head = try await http.send(HTTPRequest(method: "HEAD", url: location, headers: tus))
        XCTAssertEqual(head.headers["Upload-Offset"], "0")
        let stored = try await http.send(HTTPRequest(method: "PATCH", url: location, headers: patch, body: body))
        XCTAssertEqual(stored.status, 204, String(decoding: stored.body, as: UTF8.self))
        XCTAssertEqual(stored.headers["Upload-Offset"], String(bytes.count))
        let id = try XCTUnwrap(location.split(separator: "/").last.map(String.init))
        let s3 = try self.s3
        let bucket = try XCTUnwrap(S3Bucket(name: S3TestServer.bucket, region: "us-east-1", host: s3.host, pathStyle: true))
        let client = S3Client(bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: http)
        let copy = folder.path + "/copy.bin"
        _ = try await client.getFile("moved/tus/" + id, to: copy, maxBytes: 1 << 30)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), Data(bytes), "the object holds the body, byte for byte")
    }

    func testAnEmptyUploadCompletesItsAssembly() async throws {
        let postgres = try PostgresTestServer()
        defer { postgres.stop() }
        let folder = try TemporaryDirectory(prefix: "shared-empty")
        defer { folder.remove() }
        let engine = try ServerProcess(
            ProcessRunner.pipelineExecutable,
            ["serve", "--port", "0", "--data-dir", folder.path + "/engine", "--quiet", "--state", try postgres.makeDatabase("empty"), "--store", try store()],
            environment: environment, errors: folder.path + "/serve.log")
        defer { engine.stop() }
        let http = HTTPClient()
        let steps = #"{"steps":{"hashed":{"robot":"/file/hash","use":":original"}}}"#
        let form = "params=" + (steps.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&tus_num_expected_upload_files=1"
        let created = try JSONValue.parse(try await http.send(HTTPRequest(
            method: "POST", url: engine.url("/assemblies"), headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(form.utf8)))).body)
        let id = try XCTUnwrap(created["assembly_id"]?.stringValue, created.serialized())
        let metadata = "filename " + Data("empty.txt".utf8).base64EncodedString() + ",assembly_id " + Data(id.utf8).base64EncodedString()
        let upload = try await http.send(HTTPRequest(
            method: "POST", url: engine.url("/resumable/files/"), headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "0"), ("Upload-Metadata", metadata)]))
        XCTAssertEqual(upload.status, 201)
        let ended = await firstAnswer(within: .seconds(20)) { () async -> JSONValue? in
            guard let status = try? JSONValue.parse(try await http.send(HTTPRequest(method: "GET", url: engine.url("/assemblies/" + id))).body),  // not answering yet: asked again
                  status["ok"]?.stringValue == "ASSEMBLY_COMPLETED" || status["error"] != nil else { return nil }
            return status
        }
        XCTAssertEqual(ended?["ok"]?.stringValue, "ASSEMBLY_COMPLETED", ended?.serialized() ?? "no end")
        XCTAssertEqual(ended?["results"]?["hashed"]?.arrayValue?.first?["size"]?.intValue, 0)
    }

    private func fetch(_ url: String) async throws -> Data {
        let response = try await HTTPClient().send(HTTPRequest(method: "GET", url: url))
        XCTAssertEqual(response.status, 200, url)
        return response.body
    }
}
