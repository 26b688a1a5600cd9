import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import XCTest

/// The Assembly API of the engine: creation, errors, cancellation, tus uploads tied to an Assembly.
final class AssemblyAPITests: XCTestCase {
    private let hashStep: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])

    func testTwoFilePartsWithTheSameNameStayTwoUploads() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let steps = JSONValue.object(["h": .object(["robot": .string("/file/hash"), "use": .string(":original")])])
        let created = try await client.create(steps: steps, files: [("file", "pic.png", Data("first".utf8)), ("file", "pic.png", Data("second!".utf8))])
        let status = try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue))
        XCTAssertEqual(status["uploads"]?.arrayValue?.compactMap { $0["size"]?.intValue }, [5, 7], status.serialized())
    }

    func testErrorsCarryTheCodesTheSDKsExpect() async throws {
        let server = try EngineTestServer(credentials: ("k", "s"))
        defer { server.stop() }
        let client = EngineClient(server: server, credentials: ("k", "s"))
        let unsigned = EngineClient(server: server)
        let id = "0123456789abcdef0123456789abcdef"
        let first = try await client.create(steps: hashStep, id: id)
        XCTAssertEqual(first.status, 200)
        let cases: [(String, (status: Int, body: JSONValue))] = [
            ("NO_SIGNATURE_FIELD", try await unsigned.create(steps: hashStep)),
            ("INVALID_SIGNATURE", try await client.create(steps: hashStep, signature: "sha384:" + String(repeating: "0", count: 96))),
            ("DO_NOT_REUSE_ASSEMBLY_IDS", try await client.create(steps: hashStep, id: id)),
            ("INVALID_ASSEMBLY_ID", try await client.create(steps: hashStep, id: "not-hex")),
            ("ASSEMBLY_INVALID_STEPS", try await client.create(steps: .object(["v": .object(["robot": .string("/video/merge")])]))),
            ("ASSEMBLY_INVALID_STEPS", try await client.create(steps: .object(["a": .object(["robot": .string("/file/hash"), "use": .string("b")])]))),
            ("INVALID_PARAMS_FIELD", try await unsignedWithKey(server).create(steps: hashStep, params: "not json")),
            ("DUPLICATE_KEY", try await unsignedWithKey(server).create(steps: hashStep, params: #"{"steps":{},"st\u0065ps":{}}"#)),
        ]
        for (code, answer) in cases {
            XCTAssertEqual(answer.body["error"], .string(code), answer.body.serialized())
            XCTAssertGreaterThanOrEqual(answer.status, 400)
            XCTAssertEqual(answer.body["http_code"], .int(answer.status))
        }
        let robots = try await client.create(steps: .object(["v": .object(["robot": .string("/video/merge")])]))
        XCTAssertTrue(robots.body["message"]?.stringValue?.contains("robots that do: /audio/encode, /audio/waveform, /document/thumbs, /file/compress") == true)

        let params = JSONValue.object(["auth": .object(["key": .string("other"), "expires": .string("2099-01-01T00:00:00.000Z")]), "steps": hashStep]).serialized()
        let wrongKey = try await client.create(steps: hashStep, signature: Signature.sign(params, secret: "s"), params: params)
        XCTAssertEqual(wrongKey.body["error"], .string("GET_ACCOUNT_UNKNOWN_AUTH_KEY"))

        let reused = JSONValue.object(["auth": .object(["key": .string("k"), "expires": .string("2099-01-01T00:00:00.000Z")]), "steps": hashStep]).serialized()
        let once = try await client.create(steps: hashStep, signature: Signature.sign(reused, secret: "s"), params: reused)
        XCTAssertEqual(once.status, 200)
        let twice = try await client.create(steps: hashStep, signature: Signature.sign(reused, secret: "s"), params: reused)
        XCTAssertEqual(twice.body["error"], .string("SIGNATURE_REUSE_DETECTED"))

        // A create retried with its own id (its answer was lost) learns the Assembly exists, even with
        // the signature it sent before: the id is checked before the signature is recorded.
        let retried = JSONValue.object(["auth": .object(["key": .string("k"), "expires": .string("2099-01-01T00:00:00.000Z"), "nonce": .string("n1")]), "steps": hashStep]).serialized()
        let made = try await client.create(steps: hashStep, id: String(repeating: "c", count: 32), signature: Signature.sign(retried, secret: "s"), params: retried)
        XCTAssertEqual(made.status, 200, made.body.serialized())
        let again = try await client.create(steps: hashStep, id: String(repeating: "c", count: 32), signature: Signature.sign(retried, secret: "s"), params: retried)
        XCTAssertEqual(again.body["error"], .string("DO_NOT_REUSE_ASSEMBLY_IDS"), again.body.serialized())

        let missing = try await client.status("ffffffffffffffffffffffffffffffff")
        XCTAssertEqual(missing["error"], .string("ASSEMBLY_NOT_FOUND"))
    }

    private func unsignedWithKey(_ server: EngineTestServer) -> EngineClient { EngineClient(server: server, credentials: ("k", "s")) }

    func testTusUploadsStartTheAssemblyAndCancellationStopsOne() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 2)
        XCTAssertEqual(created.body["ok"], .string("ASSEMBLY_UPLOADING"))
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let assemblyURL = try XCTUnwrap(created.body["assembly_ssl_url"]?.stringValue)
        let tusURL = try XCTUnwrap(created.body["tus_url"]?.stringValue)
        let tus = TusClient(http: client.http, endpoint: tusURL)
        var hashes: [String] = []
        for (index, text) in ["first file", "second file"].enumerated() {
            let data = Data(text.utf8)
            let upload = try await tus.create(
                length: Int64(data.count), metadata: ["assembly_url": assemblyURL, "fieldname": "file\(index)", "filename": "f\(index).txt"])
            let waiting = try await client.status(id)
            XCTAssertEqual(waiting["ok"], .string("ASSEMBLY_UPLOADING"))
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = try directory.write("f", data: data)
            _ = try await tus.append(to: upload.url, offset: 0, body: .file(path: path, offset: 0, length: Int64(data.count)), checksum: nil)
            hashes.append(sha256(data))
        }
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"), done.serialized())
        XCTAssertEqual(done["finished_tus_uploads"], .int(2))
        let results = done["results"]?["hash"]?.arrayValue ?? []
        XCTAssertEqual(Set(results.compactMap { $0["meta"]?["hash"]?.stringValue }), Set(hashes))
        XCTAssertEqual(Set(results.compactMap { $0["name"]?.stringValue }), ["f0.txt", "f1.txt"])

        let other = try await client.create(steps: hashStep, expectedUploads: 1)
        let otherID = try XCTUnwrap(other.body["assembly_id"]?.stringValue)
        let canceled = try await client.http.send(HTTPRequest(method: "DELETE", url: client.base + "/assemblies/" + otherID))
        XCTAssertEqual(try JSONValue.parse(canceled.body)["ok"], .string("ASSEMBLY_CANCELED"))
    }

    func testRateLimitAnswersLikeTheHostedAPI() async throws {
        let clock = ManualClock()
        let server = try EngineTestServer(rateLimit: (count: 2, window: 60), clock: clock)
        defer { server.stop() }
        let client = EngineClient(server: server)
        for _ in 0..<2 {
            let allowed = try await client.create(steps: hashStep)
            XCTAssertEqual(allowed.status, 200)
            clock.advance(by: .seconds(10))
        }
        let limited = try await client.create(steps: hashStep)
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.body["error"], .string("RATE_LIMIT_REACHED"))
        let retryIn = try XCTUnwrap(limited.body["info"]?["retryIn"]?.doubleValue)
        XCTAssertEqual(retryIn, 40, "the window's rest, by the engine's clock")
        clock.advance(by: .seconds(40))
        let later = try await client.create(steps: hashStep)
        XCTAssertEqual(later.status, 200, "the oldest creation left the window")
    }

    /// `pipeline serve --data-dir ./engine`: a data folder named relative to the working folder
    /// holds its Assemblies' files like any other.
    func testARelativeDataFolderRunsAndKeepsItsAssemblies() async throws {
        let data = try TemporaryDirectory(prefix: "engine-relative")
        defer { data.remove() }
        var server = try EngineTestServer(data: data, namesDataRelatively: true)
        let created = try await EngineClient(server: server).create(steps: hashStep, files: [("file", "a.txt", Data("relative".utf8))])
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue, created.body.serialized())
        let done = try await EngineClient(server: server).wait(id)
        XCTAssertEqual(done["ok"], .string(AssemblyStatusCode.completed.rawValue), done.serialized())
        server.stop(keepData: true)
        server = try EngineTestServer(data: data, namesDataRelatively: true)
        defer { server.stop(keepData: true) }
        let again = try await EngineClient(server: server).status(id)
        XCTAssertEqual(again["ok"], .string(AssemblyStatusCode.completed.rawValue), again.serialized())
        XCTAssertEqual(again["results"]?["hash"]?.arrayValue?.count, 1)
    }

    /// `POST /assemblies/{id}/replay`: the parent's uploads run again with new steps (or the
    /// same), as a new Assembly naming its parent; one still going, or unknown, is refused.
    func testAReplayRunsTheUploadsAgainWithNewSteps() async throws {
        let credentials = (key: "replay-key", secret: "replay-secret")
        let server = try EngineTestServer(credentials: credentials)
        defer { server.stop() }
        let client = EngineClient(server: server, credentials: credentials)
        let created = try await client.create(steps: hashStep, files: [("file_0", "a.txt", Data("replayed".utf8))])
        let parent = try XCTUnwrap(created.body["assembly_id"]?.stringValue, created.body.serialized())
        let first = try await client.wait(parent)
        XCTAssertEqual(first["results"]?["hash"]?.arrayValue?.first?["meta"]?["hash_algorithm"], .string("sha256"), first.serialized())

        let steps: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original"), "algorithm": .string("md5")])])
        let replay = try await replayRequest(parent, params: .object(["steps": steps]), credentials: credentials, server: server)
        XCTAssertEqual(replay.status, 200, replay.body.serialized())
        let child = try XCTUnwrap(replay.body["assembly_id"]?.stringValue)
        XCTAssertNotEqual(child, parent)
        XCTAssertEqual(replay.body["parent_id"], .string(parent))
        let done = try await client.wait(child)
        XCTAssertEqual(done["ok"], .string(AssemblyStatusCode.completed.rawValue), done.serialized())
        XCTAssertEqual(done["results"]?["hash"]?.arrayValue?.first?["meta"]?["hash_algorithm"], .string("md5"))
        XCTAssertEqual(done["uploads"]?.arrayValue?.first?["field"], .string("file_0"), "the upload keeps its field")
        // The same again, with no steps: the parent's.
        let same = try await replayRequest(parent, params: .object([:]), credentials: credentials, server: server)
        let again = try await client.wait(try XCTUnwrap(same.body["assembly_id"]?.stringValue))
        XCTAssertEqual(again["results"]?["hash"]?.arrayValue?.first?["meta"]?["hash_algorithm"], .string("sha256"))

        let waiting = try await client.create(steps: hashStep, expectedUploads: 1)
        let going = try await replayRequest(try XCTUnwrap(waiting.body["assembly_id"]?.stringValue), params: .object([:]), credentials: credentials, server: server)
        XCTAssertEqual(going.status, 400)
        XCTAssertEqual(going.body["error"], .string("ASSEMBLY_CANNOT_BE_REPLAYED"))
        let unknown = try await replayRequest(String(repeating: "f", count: 32), params: .object([:]), credentials: credentials, server: server)
        XCTAssertEqual(unknown.status, 404)
        let unsigned = try await replayRequest(parent, params: .object([:]), credentials: nil, server: server)
        XCTAssertEqual(unsigned.body["error"], .string("NO_SIGNATURE_FIELD"))
    }

    private func replayRequest(_ id: String, params: JSONValue, credentials: (key: String, secret: String)?, server: EngineTestServer) async throws -> (status: Int, body: JSONValue) {
        var text = params.serialized()
        var body = "params="
        if let credentials {
            text = AuthParams.prepare(params, key: credentials.key, lifetime: .seconds(600)).serialized()
            body += AssemblyClient.escape(text) + "&signature=" + AssemblyClient.escape(Signature.sign(text, secret: credentials.secret))
        } else {
            body += AssemblyClient.escape(text)
        }
        let response = try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/assemblies/\(id)/replay",
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(body.utf8))))
        return (response.status, try JSONValue.parse(response.body))
    }

    func testAssembliesSurviveARestart() async throws {
        let data = try TemporaryDirectory(prefix: "engine-restart")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        let created = try await EngineClient(server: server).create(steps: hashStep, expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        server.stop(keepData: true)
        server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        let client = EngineClient(server: server)
        let status = try await client.status(id)
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_UPLOADING"))
        // Restarted on another port, as the embedded engine is for every run: its URLs follow.
        XCTAssertEqual(status["tus_url"], .string(client.base + "/resumable/files/"), status.serialized())
        XCTAssertEqual(status["assembly_url"], .string(client.base + "/assemblies/" + id))
        let upload = try await uploadEmpty("empty.txt", to: id, with: client)
        XCTAssertFalse(upload.isEmpty)
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"), done.serialized())
    }

    /// Killed between "the last upload arrived" and "the Assembly started": a restart starts it.
    func testAnAssemblyWhoseUploadsAllArrivedIsStartedAfterARestart() async throws {
        let data = try TemporaryDirectory(prefix: "engine-window")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        _ = try await uploadEmpty("empty.txt", to: id, with: client)
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"))
        server.stop(keepData: true)
        // As written in the window: every upload finished, the start not yet recorded.
        let path = data.path + "/assemblies/" + id + ".json"
        let record = try String(contentsOfFile: path, encoding: .utf8)
        try record.replacingOccurrences(of: AssemblyStatusCode.completed.rawValue, with: AssemblyStatusCode.uploading.rawValue)
            .write(toFile: path, atomically: true, encoding: .utf8)
        // Still live in the store's index, as it was until its end was written.
        XCTAssertEqual(rename(data.path + "/assemblies/ended/" + id, data.path + "/assemblies/live/" + id), 0)
        server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        let again = try await EngineClient(server: server).wait(id)
        XCTAssertEqual(again["ok"], .string("ASSEMBLY_COMPLETED"), again.serialized())
    }

    /// A status that says an Assembly completed is answered only once its record says so in the
    /// data folder: an engine killed right after cannot forget it (its results' URLs would be gone).
    func testAPhaseAClientIsToldOfIsInTheDataFolderAlready() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        for _ in 0..<5 {
            let created = try await client.create(steps: hashStep, expectedUploads: 1)
            let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
            _ = try await uploadEmpty("empty.txt", to: id, with: client)
            let done = try await client.wait(id)
            XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"))
            // Read at once, with no stop to write what was behind.
            let stored = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: server.data.path + "/assemblies/" + id + ".json")))
            XCTAssertEqual(stored["ok"], .string("ASSEMBLY_COMPLETED"), stored.serialized())
            XCTAssertEqual(stored["uploads"]?.arrayValue?.count, 1)
        }
    }

    /// Killed after an upload was stored but before the Assembly's record said so: the restarted
    /// engine ties the upload again, and the Assembly completes when the rest arrive.
    func testAnUploadWhoseTieWasNotWrittenIsTiedAgainAfterARestart() async throws {
        let data = try TemporaryDirectory(prefix: "engine-ties")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        var client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 2)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let path = data.path + "/assemblies/" + id + ".json"
        let asCreated = try Data(contentsOf: URL(fileURLWithPath: path))
        let first = try await uploadEmpty("a.txt", to: id, with: client, field: "a")
        XCTAssertFalse(first.isEmpty)
        server.stop(keepData: true)
        // As a kill within the write-behind leaves it: the upload stored, the Assembly as created.
        try asCreated.write(to: URL(fileURLWithPath: path))
        server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        client = EngineClient(server: server)
        let tied = try await client.status(id)
        XCTAssertEqual(tied["ok"], .string("ASSEMBLY_UPLOADING"))
        XCTAssertEqual(tied["finished_tus_uploads"], .int(1), tied.serialized())
        _ = try await uploadEmpty("b.txt", to: id, with: client, field: "b")
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"), done.serialized())
        XCTAssertEqual(Set(done["uploads"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []), ["a.txt", "b.txt"])
    }

    /// Creates an empty tus upload named `name` for Assembly `id` (in form field `field`, when
    /// given): its URL.
    private func uploadEmpty(_ name: String, to id: String, with client: EngineClient, field: String? = nil) async throws -> String {
        var metadata = ["assembly_id": id, "filename": name]
        metadata["fieldname"] = field
        return try await TusClient(http: client.http, endpoint: client.base + "/resumable/files/").create(length: 0, metadata: metadata).url
    }

    private func sha256(_ data: Data) -> String { FileHashing.sha256(data) }
}

/// A client that re-creates an upload whose creating request got no answer.
final class RetriedUploadTests: XCTestCase {
    func testARecreatedUploadReplacesTheUnansweredOne() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(["hash": .object(["robot": .string("/file/hash")])]), expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let tus = TusClient(http: client.http, endpoint: client.base + "/resumable/files/")
        let metadata = ["assembly_id": id, "fieldname": "file_0", "filename": "a.txt"]
        _ = try await tus.create(length: 5, metadata: metadata)
        let again = try await tus.create(length: 5, metadata: metadata, body: .data(Data("hello".utf8)))
        XCTAssertEqual(again.status.offset, 5)
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"), done.serialized())
        XCTAssertEqual(done["tus_uploads"]?.arrayValue?.count, 1)
    }
}

