import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import XCTest

/// What an attacker or a full disk cannot do to the engine: store refused uploads, replay a
/// signature after a restart, plant URLs through Host, or fill the data folder.
final class EngineDefenceTests: XCTestCase {
    private let hashStep: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])

    private func storedFiles(_ server: EngineTestServer) -> [String] {
        let root = server.data.path
        let walker = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let next = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + next, isDirectory: &isDirectory), !isDirectory.boolValue,
               !next.hasSuffix(".json"), next != "signatures.log", next != "engine.lock" {
                files.append(next)
            }
        }
        return files
    }

    func testRefusedMultipartUploadsStoreNothing() async throws {
        let server = try EngineTestServer(credentials: ("k", "s"))
        defer { server.stop() }
        let client = EngineClient(server: server, credentials: ("k", "s"))
        let file = [("file", "a.bin", Data(repeating: 1, count: 3 << 20))]
        let badSignature = try await client.create(steps: hashStep, files: file, signature: "sha384:" + String(repeating: "0", count: 96))
        XCTAssertEqual(badSignature.body["error"], .string("INVALID_SIGNATURE"))
        let filesFirst = try await client.create(steps: hashStep, files: file, filesFirst: true)
        XCTAssertEqual(filesFirst.status, 400)
        XCTAssertEqual(filesFirst.body["error"], .string("NO_PARAMS_FIELD"))
        let invalidSteps = try await client.create(steps: .object(["v": .object(["robot": .string("/video/merge")])]), files: file)
        XCTAssertEqual(invalidSteps.body["error"], .string("ASSEMBLY_INVALID_STEPS"))
        XCTAssertEqual(storedFiles(server), [], "refused requests left files behind")

        let accepted = try await client.create(steps: hashStep, files: file)
        XCTAssertEqual(accepted.status, 200, accepted.body.serialized())
        XCTAssertEqual(storedFiles(server).filter { $0.hasPrefix("incoming") }, [])
    }

    func testAKeyedEngineTakesTusUploadsOnlyForItsUploadingAssemblies() async throws {
        let server = try EngineTestServer(credentials: ("k", "s"))
        defer { server.stop() }
        let http = HTTPClient()
        func create(_ metadata: [String: String]) async throws -> Int {
            var headers: [(name: String, value: String)] = [("Tus-Resumable", "1.0.0"), ("Upload-Length", "4")]
            if !metadata.isEmpty { headers.append(("Upload-Metadata", TusProtocol.encodeMetadata(metadata))) }
            return try await http.send(HTTPRequest(method: "POST", url: server.endpoint, headers: headers)).status
        }
        let base = "http://127.0.0.1:\(server.port)/assemblies/"
        let status1 = try await create([:])
        XCTAssertEqual(status1, 403, "no Assembly named")
        let status2 = try await create(["assembly_url": base + "0123456789abcdef0123456789abcdef"])
        XCTAssertEqual(status2, 403, "no such Assembly")
        let client = EngineClient(server: server, credentials: ("k", "s"))
        let created = try await client.create(steps: hashStep, expectedUploads: 1)
        XCTAssertEqual(created.status, 200, created.body.serialized())
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let status3 = try await create(["assembly_url": base + id, "fieldname": "file", "filename": "a.bin"])
        XCTAssertEqual(status3, 201)
        let status4 = try await create(["assembly_url": base + id, "fieldname": "file", "filename": "a.bin"])
        XCTAssertEqual(status4, 201, "a retried creation of the same file")
        let status5 = try await create(["assembly_url": base + id, "fieldname": "other", "filename": "b.bin"])
        XCTAssertEqual(status5, 403, "more files than expected")
        XCTAssertEqual(server.createdUploads(), 2, "refused creations store nothing")
        // A finished Assembly takes nothing more.
        let done = try await client.create(steps: hashStep)
        let finished = try await client.wait(try XCTUnwrap(done.body["assembly_id"]?.stringValue))
        XCTAssertEqual(finished["ok"], .string("ASSEMBLY_COMPLETED"))
        let status6 = try await create(["assembly_url": base + (done.body["assembly_id"]?.stringValue ?? "")])
        XCTAssertEqual(status6, 403)
    }

    func testLeftoversInIncomingAreSweptAtStart() throws {
        let data = try TemporaryDirectory(prefix: "engine-sweep")
        defer { data.remove() }
        try data.write("incoming/0123/part-0-abc", data: Data(repeating: 0, count: 1 << 20))
        let server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: data.path + "/incoming"), [])
    }

    func testASignatureCannotBeReplayedAfterARestart() async throws {
        let data = try TemporaryDirectory(prefix: "engine-replay")
        defer { data.remove() }
        let params = JSONValue.object([
            "auth": .object(["key": .string("k"), "expires": .string(AuthParams.expires(Date().addingTimeInterval(600)))]), "steps": hashStep,
        ]).serialized()
        let signature = Signature.sign(params, secret: "s")
        var server = try EngineTestServer(data: data, credentials: ("k", "s"))
        let first = try await EngineClient(server: server, credentials: ("k", "s")).create(steps: hashStep, signature: signature, params: params)
        XCTAssertEqual(first.status, 200, first.body.serialized())
        server.stop(keepData: true)
        server = try EngineTestServer(data: data, credentials: ("k", "s"))
        defer { server.stop(keepData: true) }
        let replay = try await EngineClient(server: server, credentials: ("k", "s")).create(steps: hashStep, signature: signature, params: params)
        XCTAssertEqual(replay.body["error"], .string("SIGNATURE_REUSE_DETECTED"), replay.body.serialized())
        let ledger = try String(contentsOfFile: data.path + "/signatures.log", encoding: .utf8)
        XCTAssertFalse(ledger.contains(signature), "the ledger keeps a hash, not the signature")
    }

    func testURLsAreNeverBuiltFromAnUncheckedHost() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let planted = try await client.create(steps: hashStep, headers: [("Host", "attacker.example")])
        XCTAssertEqual(planted.status, 421)
        let honest = try await client.create(steps: hashStep, expectedUploads: 1)
        XCTAssertEqual(honest.body["tus_url"]?.stringValue, "http://127.0.0.1:\(server.port)/resumable/files/")
        XCTAssertTrue(honest.body["assembly_ssl_url"]?.stringValue?.hasPrefix("http://127.0.0.1:\(server.port)/assemblies/") == true)
    }

    func testANearlyFullDataFolderAnswers507BeforeWriting() async throws {
        let server = try EngineTestServer(reservedSpace: Int64.max / 4)
        defer { server.stop() }
        let http = HTTPClient()
        let base = "http://127.0.0.1:\(server.port)/resumable/files/"
        let tus = TusClient(http: http, endpoint: base)
        let upload = try await tus.create(length: 1 << 20, metadata: ["filename": "a.bin"])
        let patch = try await http.send(HTTPRequest(method: "PATCH", url: upload.url, headers: [
            ("Tus-Resumable", "1.0.0"), ("Upload-Offset", "0"), ("Content-Type", "application/offset+octet-stream"),
        ], body: .data(Data(repeating: 2, count: 1 << 20))))
        XCTAssertEqual(patch.status, 507)
        let form = try await EngineClient(server: server).create(steps: hashStep, files: [("file", "a.bin", Data(count: 1024))])
        XCTAssertEqual(form.status, 507)
        XCTAssertEqual(server.largestStoredSize(), 0)
    }

    func testSmallProtocolFaults() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let http = HTTPClient()
        let created = try await client.create(steps: hashStep, expectedUploads: 1, headers: [("Transloadit-Client", "test-sdk:1.2.3")])
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        XCTAssertEqual(created.body["client_agent"], .string("test-sdk:1.2.3"))
        // A NUL in an id names nothing, rather than the id before it.
        let cut = try await http.send(HTTPRequest(method: "GET", url: client.base + "/assemblies/" + id + "%00x"))
        XCTAssertEqual(cut.status, 404)

        let tus = TusClient(http: http, endpoint: client.base + "/resumable/files/")
        let upload = try await tus.create(length: 10, metadata: ["filename": "a"])
        for offset in ["+0", "0x0", "-0", "0.0", ""] {
            let patch = try await http.send(HTTPRequest(method: "PATCH", url: upload.url, headers: [
                ("Tus-Resumable", "1.0.0"), ("Upload-Offset", offset), ("Content-Type", "application/offset+octet-stream"),
            ], body: .data(Data(repeating: 1, count: 10))))
            XCTAssertEqual(patch.status, 400, "Upload-Offset '\(offset)'")
        }

        let broken = try await client.create(
            steps: .object(["r": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(10)])]),
            files: [("file", "broken.png", Data("not an image".utf8))])
        let status = try await client.wait(try XCTUnwrap(broken.body["assembly_id"]?.stringValue))
        let message = try XCTUnwrap(status["message"]?.stringValue)
        XCTAssertTrue(message.contains("broken.png"), message)
        XCTAssertFalse(message.contains(server.data.path), "the engine's folders stay private: \(message)")
    }

    func testAnUploadThatCannotBeOpenedIsNotLeftLocked() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let http = HTTPClient()
        let tus = TusClient(http: http, endpoint: "http://127.0.0.1:\(server.port)/resumable/files/")
        let upload = try await tus.create(length: 4, metadata: ["filename": "a"])
        let id = try XCTUnwrap(upload.url.split(separator: "/").last.map(String.init))
        let data = server.data.path + "/uploads/" + id + ".bin"
        try FileManager.default.removeItem(atPath: data)
        let patch = HTTPRequest(method: "PATCH", url: upload.url, headers: [
            ("Tus-Resumable", "1.0.0"), ("Upload-Offset", "0"), ("Content-Type", "application/offset+octet-stream"),
        ], body: .data(Data("abcd".utf8)))
        let failed = try await http.send(patch)
        XCTAssertEqual(failed.status, 500)
        XCTAssertTrue(FileManager.default.createFile(atPath: data, contents: nil))
        let retried = try await http.send(patch)
        XCTAssertEqual(retried.status, 204, "the failed request gave its claim back")
    }

    /// A data folder restored from elsewhere with uploads whose bytes are links to files outside:
    /// one claiming fewer bytes than its file holds (a restart cuts such a file back), one claiming
    /// to be finished for an Assembly waiting for it, and one unfinished whose file is a hard link.
    /// A restart neither cuts, takes nor keeps writing any of them.
    func testUploadsLinkedOutsideTheDataFolderAreNeitherCutNorTaken() async throws {
        let outside = try TemporaryDirectory(prefix: "engine-outside")
        defer { outside.remove() }
        let precious = Data(repeating: 42, count: 1000)
        try outside.write("precious.bin", data: precious)
        let data = try TemporaryDirectory(prefix: "engine-planted")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        let created = try await EngineClient(server: server).create(steps: hashStep, expectedUploads: 1)
        let assembly = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        server.stop(keepData: true)
        let now = "2026-01-01T00:00:00Z"
        for (id, offset) in [(String(repeating: "1", count: 32), 10), (String(repeating: "2", count: 32), 1000)] {
            try data.write("uploads/\(id).json", """
                {"id": "\(id)", "length": 1000, "offset": \(offset), "metadata": {"assembly_id": "\(assembly)", "filename": "p.bin"}, "created": "\(now)", "expires": "\(now)"}
                """)
            try FileManager.default.createSymbolicLink(atPath: data.path + "/uploads/\(id).bin", withDestinationPath: outside.path + "/precious.bin")
        }
        // An unfinished one whose bytes are a hard link to the outside file (the next PATCH would append to it).
        let linked = String(repeating: "3", count: 32)
        try data.write("uploads/\(linked).json", """
            {"id": "\(linked)", "length": 2000, "offset": 1000, "metadata": {"filename": "p.bin"}, "created": "\(now)", "expires": "2099-01-01T00:00:00Z"}
            """)
        XCTAssertEqual(link(outside.path + "/precious.bin", data.path + "/uploads/\(linked).bin"), 0)
        server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: outside.path + "/precious.bin")), precious, "cut through a link")
        XCTAssertEqual(server.createdUploads(), 0, "the planted uploads are forgotten")
        let status = try await EngineClient(server: server).status(assembly)
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_UPLOADING"), status.serialized())
        XCTAssertEqual(status["uploads"]?.arrayValue?.count ?? 0, 0, status.serialized())
    }
}
