@testable import Engine
import APIClients
import Basics
import Crypto
import Foundation
import HTTPClient
import TestSupport
import Wire
import XCTest

/// The embedded engine's services, called in process: no port, files read where they are and
/// never copied unless the Assembly keeps them, results as paths, waits that suspend rather than poll.
final class InProcessServicesTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var engine: LocalEngine!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory()
        engine = try LocalEngine.embedded(LocalEngine.Configuration(dataDirectory: folder.path + "/engine"))
    }

    override func tearDown() {
        engine.stop()
        folder.remove()
    }

    private static let resize: JSONValue = .object([
        "small": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(16), "height": .int(16)]),
    ])

    /// Creates an Assembly of `steps` expecting `files`, hands them over, and waits for its end.
    private func run(_ steps: JSONValue, files: [String], wait: Bool = true) async throws -> AssemblyState {
        let services = engine.services
        let id = RandomID.hex32()
        let created = try await services.assemblies.create(
            id: id, params: JSONValue.object(["steps": steps]).serialized(), signature: nil, expectedUploads: files.count)
        let reference = try XCTUnwrap(created.reference)
        let uploads = files.enumerated().map { index, path in
            UploadFile(path: path, metadata: ["fieldname": "file_\(index)", "filename": (path as NSString).lastPathComponent])
        }
        let handed = try await services.uploads.upload(uploads, to: try XCTUnwrap(created.tusURL), for: reference, options: UploadOptions(stateDirectory: nil)) { _ in }
        for result in handed { _ = try result.get() }
        var state = try await services.assemblies.status(reference, wait: wait ? 20 : nil)
        while state.isBusy { state = try await services.assemblies.status(reference, wait: 20) }
        return state
    }

    func testFilesAreReadWhereTheyAreAndResultsAreTheirPaths() async throws {
        XCTAssertEqual(engine.port, 0, "an embedded engine listens on no port")
        let photo = try folder.write("photos/a #1 é.png", data: TestImages.png(width: 64, height: 48))
        let state = try await run(Self.resize, files: [photo])
        XCTAssertEqual(state.ok, AssemblyStatusCode.completed)
        // The upload is the file itself: its inode, linked into the Assembly, not a copy.
        let upload = try XCTUnwrap(URL(string: try XCTUnwrap(state.uploads.first?.url))?.path)
        XCTAssertTrue(upload.hasPrefix(folder.path + "/engine/assemblies/"), upload)
        XCTAssertEqual(FileIdentityOrNil(upload)?.inode, FileIdentityOrNil(photo)?.inode, "a link to the source, not a copy")
        let result = try XCTUnwrap(state.results["small"]?.first?.url)
        let path = try XCTUnwrap(URL(string: result)?.path)
        XCTAssertTrue(path.hasPrefix(folder.path + "/engine/results/"), path)
        XCTAssertEqual(FileIdentityOrNil(path)?.size, state.results["small"]?.first?.size)
        XCTAssertTrue(try XCTUnwrap(state.assemblyURL).hasSuffix(".json"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(URL(string: try XCTUnwrap(state.assemblyURL))?.path)))
        XCTAssertEqual(try FileSystem.names(in: folder.path + "/engine/uploads"), [])
    }

    func testAStepThatHandsAFileOnAsItsResultKeepsACopyInTheDataFolder() async throws {
        let file = try folder.write("doc.txt", "kept with its Assembly")
        // /file/hash and /file/filter hand their input on, with facts added or as it is.
        let steps: JSONValue = .object([
            "hash": .object(["robot": .string("/file/hash"), "use": .string(":original")]),
            "kept": .object(["robot": .string("/file/filter"), "use": .string(":original"), "accepts": .array([.array([.string("${file.size}"), .string(">"), .string("0")])])]),
        ])
        let state = try await run(steps, files: [file])
        let kept = try XCTUnwrap(URL(string: try XCTUnwrap(state.results["hash"]?.first?.url))?.path)
        XCTAssertEqual(URL(string: try XCTUnwrap(state.results["kept"]?.first?.url))?.path.hasPrefix(folder.path + "/engine/results/"), true)
        XCTAssertTrue(kept.hasPrefix(folder.path + "/engine/results/"), kept)
        XCTAssertTrue(kept.hasSuffix("/doc.txt"), kept)
        XCTAssertEqual(try String(contentsOfFile: kept, encoding: .utf8), "kept with its Assembly")
    }

    /// Hands the file at `path` to the Assembly `created` as its file number `index`.
    private func hand(_ path: String, _ index: Int, to created: AssemblyState) async throws {
        let file = UploadFile(
            path: path, metadata: ["fieldname": "file_\(index)", "filename": (path as NSString).lastPathComponent])
        let results = try await engine.services.uploads.upload([file], to: try XCTUnwrap(created.tusURL), for: try XCTUnwrap(created.reference), options: UploadOptions(), progress: { _ in })
        for result in results { _ = try result.get() }
    }

    func testAFileChangedAfterItWasHandedOverFailsTheAssembly() async throws {
        let first = try folder.write("first.png", data: TestImages.png(width: 32, height: 32))
        let second = try folder.write("second.png", data: TestImages.png(width: 32, height: 32))
        let services = engine.services
        let created = try await services.assemblies.create(
            id: RandomID.hex32(), params: JSONValue.object(["steps": Self.resize]).serialized(), signature: nil, expectedUploads: 2)
        let reference = try XCTUnwrap(created.reference)
        try await hand(first, 0, to: created)
        _ = try folder.write("first.png", data: TestImages.png(width: 40, height: 40))
        try await hand(second, 1, to: created)
        var outcome: AssemblyClient.Failure?
        do throws(AssemblyClient.Failure) {
            var state = try await services.assemblies.status(reference, wait: 20)
            while state.isBusy { state = try await services.assemblies.status(reference, wait: 20) }
        } catch {
            outcome = error
        }
        let failure = try XCTUnwrap(outcome, "a changed file was processed")
        XCTAssertEqual(failure.code, .fileChanged)
        XCTAssertTrue(failure.message.contains("first.png"), failure.message)
    }

    /// A file put in the planned file's place (renamed over it, its time set back) between plan and
    /// hand-over is refused as changed: the open file handed over must hold the planned SHA-256.
    func testAFileReplacedSinceThePlanIsRefusedAsChanged() async throws {
        let planned = TestImages.png(width: 40, height: 30)
        let photo = try folder.write("photos/a.png", data: TestImages.png(width: 41, height: 30))
        let services = engine.services
        let created = try await services.assemblies.create(
            id: RandomID.hex32(), params: JSONValue.object(["steps": Self.resize]).serialized(), signature: nil, expectedUploads: 1)
        let reference = try XCTUnwrap(created.reference)
        var info = stat()
        XCTAssertEqual(stat(photo, &info), 0)
        let file = UploadFile(
            path: photo, metadata: ["fieldname": "file_0", "filename": "a.png"],
            known: (SHA256.hex(Array(planned)), FileTime.nanoseconds(info.st_mtim)))
        let handed = try await services.uploads.upload([file], to: try XCTUnwrap(created.tusURL), for: reference, options: UploadOptions(stateDirectory: nil)) { _ in }
        XCTAssertThrowsError(try handed.first?.get()) { error in
            XCTAssertTrue("\(error)".contains("FILE_CHANGED") || "\(error)".contains("changed since it was planned"), "\(error)")
        }
        // The planned bytes themselves are taken.
        try planned.write(to: URL(fileURLWithPath: photo))
        XCTAssertEqual(stat(photo, &info), 0)
        let again = UploadFile(
            path: photo, metadata: ["fieldname": "file_0", "filename": "a.png"],
            known: (SHA256.hex(Array(planned)), FileTime.nanoseconds(info.st_mtim)))
        let taken = try await services.uploads.upload([again], to: try XCTUnwrap(created.tusURL), for: reference, options: UploadOptions(stateDirectory: nil)) { _ in }
        XCTAssertNoThrow(try taken.first?.get())
    }

    func testAWaitEndsWhenTheAssemblyMovesOnAndWhenItsTaskIsCancelled() async throws {
        let services = engine.services
        let created = try await services.assemblies.create(
            id: RandomID.hex32(), params: JSONValue.object(["steps": Self.resize]).serialized(), signature: nil, expectedUploads: 1)
        let reference = try XCTUnwrap(created.reference)
        let waiting = Task { try await services.assemblies.status(reference, wait: 20) }
        waiting.cancel()
        let answer = try await waiting.value
        XCTAssertEqual(answer.ok, AssemblyStatusCode.uploading, "a cancelled wait answers with the status as it is")

        let held = Task { try await services.assemblies.status(reference, wait: 20) }
        try await hand(try folder.write("p.png", data: TestImages.png(width: 20, height: 20)), 0, to: created)
        let moved = try await held.value
        XCTAssertNotEqual(moved.ok, AssemblyStatusCode.uploading, "the held wait answered when the last file arrived, not after 20 s")
    }

    /// An Assembly is asked about by its id, never by a URL: one that is not an id is refused
    /// before it names a record, and a URL beside it is not read.
    func testAssembliesAreAskedAboutByTheirIDAlone() async throws {
        let services = engine.services
        let created = try await services.assemblies.create(
            id: RandomID.hex32(), params: JSONValue.object(["steps": Self.resize]).serialized(), signature: nil, expectedUploads: 1)
        let reference = try XCTUnwrap(created.reference)
        XCTAssertNil(reference.statusURL, "the embedded engine's Assemblies are named by id")
        let elsewhere = AssemblyReference(id: reference.id, statusURL: "https://elsewhere.test/assemblies/" + reference.id)
        let asked = try await services.assemblies.status(elsewhere)
        XCTAssertEqual(asked.assemblyID, reference.id)
        for id in ["../assemblies/" + reference.id, reference.id + ".json", ""] {
            do {
                _ = try await services.assemblies.status(AssemblyReference(id: id))
                XCTFail("'\(id)' was taken for an Assembly id")
            } catch {
                XCTAssertEqual(error.code, .invalidAssemblyID)
            }
        }
    }

    func testTemplatesInProcess() async throws {
        let client = TemplateClient(transport: engine.services.templates)
        let id = try await client.create(name: "small-thumbs", content: .object(["steps": Self.resize]), requireSignatureAuth: false)
        let listed = try await client.list()
        XCTAssertEqual(listed.map(\.name), ["small-thumbs"])
        try await client.update(id: id, name: "small-thumbs", content: .object(["steps": Self.resize, "allow_steps_override": .bool(false)]), requireSignatureAuth: true)
        let updated = try await client.get(id: id)
        XCTAssertEqual(updated.requireSignatureAuth, true)
        try await client.delete(id: id)
        do {
            _ = try await client.get(id: id)
            XCTFail("a deleted Template was found")
        } catch let failure as AssemblyClient.Failure {
            XCTAssertEqual(failure.code, .templateNotFound)
        }
    }

    private func FileIdentityOrNil(_ path: String) -> FileIdentity? {
        do { return try FileIdentity.of(path) } catch { return nil }
    }
}

/// A record naming files read in place is trusted only by the process that handed them over:
/// another engine on the same data folder (after a crash, or a folder from a cache) never reads
/// or serves them, even when the record is made to look like one still executing.
final class InProcessStateTests: XCTestCase {
    func testAStoredAssemblyReadingFilesInPlaceIsEndedNotRunNorServed() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let data = folder.path + "/engine"
        let secret = try folder.write("outside/secret.txt", "not for any Assembly")
        let embedded = try LocalEngine.embedded(LocalEngine.Configuration(dataDirectory: data))
        let services = embedded.services
        let steps: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])
        let created = try await services.assemblies.create(
            id: RandomID.hex32(), params: JSONValue.object(["steps": steps]).serialized(), signature: nil, expectedUploads: 2)
        let id = try XCTUnwrap(created.assemblyID)
        let file = UploadFile(path: secret, metadata: ["fieldname": "file_0", "filename": "secret.txt"])
        for result in try await services.uploads.upload([file], to: try XCTUnwrap(created.tusURL), for: try XCTUnwrap(created.reference), options: UploadOptions(), progress: { _ in }) {
            _ = try result.get()
        }
        embedded.stop()

        // Made to look ready to run: every expected file in, executing.
        let recordPath = data + "/assemblies/" + id + ".json"
        var record = try XCTUnwrap(JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: recordPath))).objectValue)
        record["ok"] = .string(AssemblyStatusCode.executing.rawValue)
        record["expectedTusUploads"] = .int(1)
        try JSONValue.object(record).compactData.write(to: URL(fileURLWithPath: recordPath))
        let uploadID = try XCTUnwrap(record["uploads"]?.arrayValue?.first?["id"]?.stringValue)

        let served = try LocalEngine(LocalEngine.Configuration(dataDirectory: data), server: .init(host: "127.0.0.1", port: 0))
        defer { served.stop() }
        let base = "http://127.0.0.1:\(served.port)"
        let status = try JSONValue.parse(try await HTTPClient().send(HTTPRequest(method: "GET", url: base + "/assemblies/" + id)).body)
        XCTAssertEqual(status["error"]?.stringValue, APIErrorCode.interrupted.rawValue, "\(status)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: data + "/results/" + id), "nothing ran on the file")
        let fetched = try await HTTPClient().send(HTTPRequest(method: "GET", url: base + "/results/\(id)/\(uploadID)/secret.txt"))
        XCTAssertEqual(fetched.status, 404, "a file read in place is never served")
        XCTAssertFalse(String(decoding: fetched.body, as: UTF8.self).contains("not for any Assembly"))
    }
}
