@testable import Engine
import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire
import XCTest

/// The engine Assembly's one transition function, fed events without sockets, and a cancel at
/// each point of a real Assembly's life on a real engine.
final class AssemblyLifecycleTests: XCTestCase {
    private let phases: [AssemblyPhase] = [.uploading, .executing, .completed, .canceled, .failed(code: APIErrorCode(received: "X_ERROR"))]
    private let events: [AssemblyEvent] = [
        .uploadsComplete, .restarted, .cancel, .stepsFinished(results: [:], ignored: [], warnings: []), .stepsFailed(code: APIErrorCode(received: "Y_ERROR"), message: "m"),
    ]

    func testEveryTransition() {
        func next(_ phase: AssemblyPhase, _ event: AssemblyEvent) -> String {
            let (phase, action) = AssemblyLifecycle.next(phase, on: event)
            return "\(phase) \(action)"
        }
        XCTAssertEqual(next(.uploading, .uploadsComplete), "executing execute")
        XCTAssertEqual(next(.uploading, .cancel), "canceled none")
        XCTAssertEqual(next(.uploading, .restarted), "uploading none", "a restart does not start an Assembly still waiting")
        XCTAssertEqual(next(.uploading, .stepsFinished(results: [:], ignored: [], warnings: [])), "uploading none")
        XCTAssertEqual(next(.executing, .restarted), "executing execute")
        XCTAssertEqual(next(.executing, .uploadsComplete), "executing none", "a late upload does not start it twice")
        XCTAssertEqual(next(.executing, .cancel), "canceled none")
        XCTAssertEqual(next(.executing, .stepsFinished(results: [:], ignored: [], warnings: [])), "completed none")
        XCTAssertEqual(next(.executing, .stepsFailed(code: APIErrorCode(received: "Y_ERROR"), message: "m")), "failed(code: Y_ERROR) discardResults")
        // Steps that end after a cancel: the cancel stands and their files go.
        XCTAssertEqual(next(.canceled, .stepsFinished(results: [:], ignored: [], warnings: [])), "canceled discardResults")
        XCTAssertEqual(next(.canceled, .stepsFailed(code: .assemblyCanceled, message: "m")), "canceled discardResults")
    }

    func testAnEndingIsNeverUndone() {
        for phase in phases where phase.isTerminal {
            for event in events {
                XCTAssertEqual(AssemblyLifecycle.next(phase, on: event).phase, phase, "\(phase) after \(event)")
            }
        }
    }

    func testTheRecordKeepsTheWireFormOfEarlierEngines() throws {
        var record = AssemblyRecord(
            id: String(repeating: "a", count: 32), origin: "http://127.0.0.1:1", params: "{}", steps: .object([:]), fields: [:], notifyURL: nil,
            expectedTusUploads: 1, uploads: [], created: Date(timeIntervalSince1970: 0), clientAgent: nil)
        XCTAssertEqual(record.phase, .uploading)
        XCTAssertEqual(record.message, "The Assembly is waiting for its uploads.")
        XCTAssertEqual(record.apply(.uploadsComplete), .execute)
        XCTAssertEqual(record.apply(.stepsFailed(code: .imageResizeError, message: "step 'a' (/image/resize): bad")), .discardResults)
        XCTAssertNotNil(record.finished)
        XCTAssertEqual(record.message, "step 'a' (/image/resize): bad")
        let stored = try XCTUnwrap(JSONValue.parse(try StateCoding.encoder.encode(record)))
        XCTAssertEqual(stored["error"], .string("IMAGE_RESIZE_ERROR"))
        XCTAssertNil(stored["ok"])
        let status = AssemblyStatus.document(record, tusPath: "/resumable/files/")
        XCTAssertEqual(status.error, .imageResizeError)
        // A record an earlier engine wrote reads back in the phase its `ok` names.
        var earlier = try XCTUnwrap(stored.objectValue)
        earlier["error"] = nil
        earlier["ok"] = .string("ASSEMBLY_COMPLETED")
        let decoded = try StateCoding.decode(AssemblyRecord.self, from: Data(JSONValue.object(earlier).serialized().utf8))
        XCTAssertEqual(decoded.phase, .completed)
    }

    private let hashStep: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])

    /// An Assembly on `server` waiting for one tus upload, and that upload created (`length` bytes
    /// announced as `filename`): the client, the Assembly's id, the tus client, the upload's URL and its metadata.
    private func waitingAssembly(on server: EngineTestServer, length: Int, filename: String) async throws
        -> (EngineClient, String, TusClient, String, [String: String]) {
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, expectedUploads: 1)
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let tus = TusClient(http: client.http, endpoint: try XCTUnwrap(created.body["tus_url"]?.stringValue))
        let metadata = ["assembly_url": try XCTUnwrap(created.body["assembly_ssl_url"]?.stringValue), "filename": filename]
        let made = try await tus.create(length: Int64(length), metadata: metadata)
        return (client, id, tus, made.url, metadata)
    }

    func testACancelWhileUploadingStandsWhenTheLastUploadArrives() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let data = Data("the only file".utf8)
        let (client, id, tus, upload, metadata) = try await waitingAssembly(on: server, length: data.count, filename: "f.txt")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("f", data: data)
        _ = try await tus.append(to: upload, offset: 0, body: .file(path: path, offset: 0, length: 4), checksum: nil)
        let canceled = try await client.http.send(HTTPRequest(method: "DELETE", url: client.base + "/assemblies/" + id))
        XCTAssertEqual(try JSONValue.parse(canceled.body)["ok"], .string("ASSEMBLY_CANCELED"))
        // The cancel ends the upload: the rest of the file is refused, what came is removed, and
        // no new upload is taken for the Assembly.
        do {
            _ = try await tus.append(to: upload, offset: 4, body: .file(path: path, offset: 4, length: Int64(data.count) - 4), checksum: nil)
            XCTFail("a PATCH after the cancel is refused")
        } catch {
            XCTAssertEqual(error.status, 410, error.description)
            XCTAssertTrue(error.detail.contains("canceled"), error.detail)
        }
        let head = try await client.http.send(HTTPRequest(method: "HEAD", url: upload, headers: [("Tus-Resumable", "1.0.0")]))
        XCTAssertTrue([404, 410].contains(head.status), "\(head.status)")
        XCTAssertThrowsError(try server.storedBytes(of: upload), "the bytes received are removed")
        do {
            _ = try await tus.create(length: Int64(data.count), metadata: metadata)
            XCTFail("no upload is created for a canceled Assembly")
        } catch {
            XCTAssertEqual(error.status, 410, error.description)
        }
        let after = try await client.status(id)
        XCTAssertEqual(after["ok"], .string("ASSEMBLY_CANCELED"), after.serialized())
        XCTAssertEqual(after["results"], .object([:]))
        XCTAssertEqual(after["uploads"], .array([]))
    }

    func testAnUploadThatCannotBeKeptFailsItsAssemblyAtOnce() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let data = Data("the only file".utf8)
        let (client, id, tus, upload, _) = try await waitingAssembly(on: server, length: data.count, filename: "f.txt")
        // Where the Assembly keeps its uploads, something that is not a folder: neither link nor copy can land.
        try FileManager.default.createDirectory(atPath: server.data.path + "/assemblies/" + id, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: server.data.path + "/assemblies/" + id + "/uploads", contents: Data("x".utf8)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("f", data: data)
        // The bytes that came cannot be kept: the PATCH is refused, its offset is not confirmed.
        do {
            _ = try await tus.append(to: upload, offset: 0, body: .file(path: path, offset: 0, length: Int64(data.count)), checksum: nil)
            XCTFail("the PATCH whose bytes could not be kept is refused")
        } catch {
            XCTAssertEqual(error.status, 410, error.description)
        }
        let after = try await client.status(id)
        XCTAssertEqual(after["error"], .string("SERVER_STORAGE_ERROR"), after.serialized())
        XCTAssertTrue(after["message"]?.stringValue?.contains("could not be kept with the Assembly") == true, after.serialized())
        XCTAssertEqual(after["uploads"], .array([]))
    }

    func testAnUploadThatEndsAfterItsAssemblyWasCanceledIsNotKept() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let body = Data(repeating: 7, count: 64 << 10)
        let (client, id, _, upload, _) = try await waitingAssembly(on: server, length: body.count, filename: "big.bin")
        // A PATCH whose body is half sent when the Assembly is canceled, then finished (a client
        // that does not stop its own upload, as TransloaditKit).
        let path = try XCTUnwrap(URL(string: upload)?.path)
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send(Data((
            "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
            + "Content-Type: application/offset+octet-stream\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body.prefix(1000)))
        // Canceled once the engine holds the first part of the body.
        let uploadFile = server.data.path + "/uploads/" + (path.split(separator: "/").last.map(String.init) ?? "") + ".bin"
        let receiving = await eventually {
            var info = stat()
            return stat(uploadFile, &info) == 0 && info.st_size >= 1000
        }
        XCTAssertTrue(receiving, "the engine stores the body as it comes")
        let canceled = try await client.http.send(HTTPRequest(method: "DELETE", url: client.base + "/assemblies/" + id))
        XCTAssertEqual(try JSONValue.parse(canceled.body)["ok"], .string("ASSEMBLY_CANCELED"))
        _ = connection.send(body.dropFirst(1000))  // the engine may have stopped reading: what is kept matters
        let answer = connection.read(timeout: 5) { $0.contains("\r\n\r\n") }
        // Refused (or cut): never a 204 with an offset that nothing holds.
        XCTAssertFalse(answer.text.hasPrefix("HTTP/1.1 204"), answer.text)
        XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 410") || (answer.closed && answer.text.isEmpty), answer.text)
        let after = try await client.status(id)
        XCTAssertEqual(after["ok"], .string("ASSEMBLY_CANCELED"))
        XCTAssertEqual(after["uploads"], .array([]), "the late upload is not listed in the canceled Assembly")
        XCTAssertThrowsError(try server.storedBytes(of: upload), "nor kept")
    }

    func testACancelAfterCompletionChangesNothing() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, files: [("file", "a.txt", Data("a".utf8))])
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"))
        let canceled = try await client.http.send(HTTPRequest(method: "DELETE", url: client.base + "/assemblies/" + id))
        let answer = try JSONValue.parse(canceled.body)
        XCTAssertEqual(answer["ok"], .string("ASSEMBLY_COMPLETED"))
        XCTAssertEqual(answer["results"]?["hash"]?.arrayValue?.count, 1)
    }

    func testAssembliesBeyondTheBoundWaitTheirTurnInOrder() throws {
        let data = try TemporaryDirectory(prefix: "engine-bound")
        defer { data.remove() }
        let store = try AssemblyStore(directory: data.path + "/assemblies")
        let executor = AssemblyExecutor(store: store, resultsDirectory: data.path + "/results", maxRunning: 1)
        let ids = (0..<6).map { String(format: "%032x", $0 + 1) }
        for id in ids {
            let file = data.path + "/" + id
            try Data(id.utf8).write(to: URL(fileURLWithPath: file))
            let upload = FileFacts.describe(id: AssemblyFile.newID(), name: "f.txt", field: "file", path: file, size: 32, mime: nil, isTus: false)
            XCTAssertTrue(try store.insert(AssemblyRecord(
                id: id, origin: "http://127.0.0.1:1", params: "{}", steps: hashStep, fields: [:], notifyURL: nil,
                expectedTusUploads: 0, uploads: [upload], created: Date(), clientAgent: nil)))
        }
        // The first Assembly's file is a sparse GiB: hashing it takes a while, so while it runs
        // the others can only wait. (A FIFO no longer holds a robot: every input is opened
        // without waiting for a writer.)
        let gate = open(data.path + "/" + ids[0], O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(gate, 0)
        XCTAssertEqual(ftruncate(gate, 1 << 30), 0)
        close(gate)
        for id in ids { executor.execute(id) }
        XCTAssertEqual(executor.load.running, 1)
        XCTAssertEqual(executor.load.queued, 5, "the Assemblies beyond the bound wait their turn")
        var busiest = 0
        // Sampled every millisecond until all have ended.
        eventuallyBlocking(within: .seconds(30), every: .milliseconds(1)) {
            busiest = max(busiest, executor.load.running)
            return !ids.contains { store.get($0)?.isTerminal != true }
        }
        XCTAssertLessThanOrEqual(busiest, 1)
        let records = ids.compactMap { store.get($0) }
        XCTAssertEqual(records.filter { $0.phase == .completed }.count, 6)
        let finished = records.compactMap(\.finished)
        XCTAssertEqual(finished.count, 6)
        XCTAssertEqual(finished, finished.sorted(), "one at a time, in the order they were started")
    }
}
