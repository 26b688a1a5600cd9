@testable import Engine
import APIClients
import Basics
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `pipeline serve --retention`: what ended Assemblies leave goes after the window, on a sweep that
/// no client has to trigger, and never what an Assembly still going needs.
final class RetentionSweepTests: XCTestCase {
    private let hashStep: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])
    private let retention = EngineRetention(files: .seconds(3600), records: .seconds(86_400))

    private func sweep(_ server: EngineTestServer) throws -> RetentionSweep { try XCTUnwrap(server.engine.sweep) }

    func testAnEndedAssemblyLosesItsFilesAfterTheWindowAndItsRecordSaysWhen() async throws {
        let clock = ManualClock()
        let server = try EngineTestServer(clock: clock, retention: retention)
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, files: [("file", "photo #1.jpg", Data("bytes of a photo".utf8))])
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        let done = try await client.wait(id)
        XCTAssertEqual(done["ok"], .string("ASSEMBLY_COMPLETED"))
        let resultURL = try XCTUnwrap(done["results"]?["hash"]?.arrayValue?.first?["ssl_url"]?.stringValue)
        // Still going: an Assembly that waits for a tus upload, made before the window ran out.
        let going = try await client.create(steps: hashStep, expectedUploads: 1)
        let goingID = try XCTUnwrap(going.body["assembly_id"]?.stringValue)

        try sweep(server).sweep()
        let answer1 = try await client.download(resultURL).status
        XCTAssertEqual(answer1, 200, "inside the window")

        clock.advance(by: .seconds(3601))
        try sweep(server).sweep()
        XCTAssertEqual(try sweep(server).current.expiredAssemblies, 1)
        let gone = try await client.download(resultURL)
        XCTAssertEqual(gone.status, 410)
        XCTAssertTrue(String(decoding: gone.body, as: UTF8.self).contains("retention"), String(decoding: gone.body, as: UTF8.self))
        let status = try await client.status(id)
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), "the record stays")
        XCTAssertEqual(status["results"]?["hash"]?.arrayValue?.first?["name"], .string("photo #1.jpg"))
        XCTAssertTrue(status["warnings"]?.arrayValue?.contains { $0["msg"]?.stringValue?.contains("were removed at") == true } == true, status.serialized())
        XCTAssertTrue(server.retentionLines.contains { $0.contains("removed the files of 1 Assemblies") }, "\(server.retentionLines)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.data.path + "/results/" + id))
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.data.path + "/assemblies/" + id))
        let answer2 = try await client.status(goingID)["ok"]
        XCTAssertEqual(answer2, .string("ASSEMBLY_UPLOADING"), "an Assembly still going keeps everything")

        clock.advance(by: .seconds(86_401))
        try sweep(server).sweep()
        XCTAssertEqual(try sweep(server).current.removedRecords, 1, "\(FileSystem.namesOrNone(in: server.data.path + "/assemblies")) \(FileSystem.namesOrNone(in: server.data.path + "/assemblies/ended")) \(String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: server.data.path + "/assemblies/" + id + ".json"))) ?? Data(), as: UTF8.self))")
        let answer3 = try await client.status(id)["error"]
        XCTAssertEqual(answer3, .string("ASSEMBLY_NOT_FOUND"))
        let answer4 = try await client.status(goingID)["ok"]
        XCTAssertEqual(answer4, .string("ASSEMBLY_UPLOADING"))
    }

    func testAReplayOfAnAssemblyWhoseFilesWentIsRefusedWithTheReason() async throws {
        let clock = ManualClock()
        let server = try EngineTestServer(clock: clock, retention: retention)
        defer { server.stop() }
        let client = EngineClient(server: server)
        let created = try await client.create(steps: hashStep, files: [("file", "a.txt", Data("a".utf8))])
        let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
        _ = try await client.wait(id)
        clock.advance(by: .seconds(3601))
        try sweep(server).sweep()
        let response = try await client.http.send(HTTPRequest(
            method: "POST", url: client.base + "/assemblies/" + id + "/replay", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: .data(Data("params=%7B%7D".utf8))))
        XCTAssertNotEqual(response.status, 200)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("removed at"), String(decoding: response.body, as: UTF8.self))
    }

    func testAnAbandonedUploadGoesWithoutBeingTouched() async throws {
        let clock = ManualClock()
        let server = try EngineTestServer(clock: clock, retention: retention, uploadLifetime: 600)
        defer { server.stop() }
        let http = HTTPClient()
        let created = try await http.send(HTTPRequest(method: "POST", url: server.endpoint, headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "100")]))
        let id = try XCTUnwrap(created.headers["Location"]?.split(separator: "/").last.map(String.init))
        let patch = try await http.send(HTTPRequest(
            method: "PATCH", url: server.endpoint + id,
            headers: [("Tus-Resumable", "1.0.0"), ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", "0")], body: .data(Data(count: 10))))
        XCTAssertEqual(patch.status, 204)
        try sweep(server).sweep()
        XCTAssertTrue(FileManager.default.fileExists(atPath: server.data.path + "/uploads/\(id).bin"), "not expired yet")
        clock.advance(by: .seconds(3601))
        try sweep(server).sweep()
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.data.path + "/uploads/\(id).bin"), "expired, and swept untouched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.data.path + "/uploads/\(id).json"))
        XCTAssertEqual(try sweep(server).current.removedUploads, 1)
    }

    func testAnExpiredUploadThatARequestIsWritingStays() throws {
        let folder = try TemporaryDirectory(prefix: "retention-uploads")
        defer { folder.remove() }
        let store = try UploadStore(directory: folder.path)
        let past = Date().addingTimeInterval(-7200)
        let record = TusUploadRecord(id: String(repeating: "c", count: 32), length: 100, offset: 0, metadata: [:], created: past, expires: past)
        try store.create(record)
        var claim = store.claim(record.id)
        XCTAssertNotNil(claim)
        XCTAssertEqual(store.sweep(now: Date(), finishedBefore: Date(), lifetime: 600).uploads, 0, "a request holds it")
        XCTAssertNotNil(store.record(record.id))
        claim = nil
        XCTAssertEqual(store.sweep(now: Date(), finishedBefore: Date(), lifetime: 600).uploads, 1)
        XCTAssertNil(store.record(record.id))
    }

    func testAStartReadsTheLiveRecordsOnlyAndAnOldFolderIsIndexedOnce() async throws {
        let data = try TemporaryDirectory(prefix: "retention-start")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        let client = EngineClient(server: server)
        var ended: [String] = []
        for index in 0..<3 {
            let created = try await client.create(steps: hashStep, files: [("file", "\(index).txt", Data("\(index)".utf8))])
            let id = try XCTUnwrap(created.body["assembly_id"]?.stringValue)
            _ = try await client.wait(id)
            ended.append(id)
        }
        let uploading = try await client.create(steps: hashStep, expectedUploads: 1)
        let going = try XCTUnwrap(uploading.body["assembly_id"]?.stringValue)
        server.stop(keepData: true)

        server = try EngineTestServer(data: data)
        XCTAssertEqual(server.engine.recordsReadAtStart, 1, "only the one still going")
        let again = EngineClient(server: server)
        for id in ended {
            let status = try await again.status(id)
            XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), "read when asked for")
        }
        let answer5 = try await again.status(going)["ok"]
        XCTAssertEqual(answer5, .string("ASSEMBLY_UPLOADING"))
        server.stop(keepData: true)

        // A data folder an engine from before the index wrote: read whole once, then indexed.
        for part in ["live", "ended"] { try FileManager.default.removeItem(atPath: data.path + "/assemblies/" + part) }
        server = try EngineTestServer(data: data)
        XCTAssertEqual(server.engine.recordsReadAtStart, 4)
        server.stop(keepData: true)
        server = try EngineTestServer(data: data)
        defer { server.stop() }
        XCTAssertEqual(server.engine.recordsReadAtStart, 1)
        let answer6 = try await EngineClient(server: server).status(going)["ok"]
        XCTAssertEqual(answer6, .string("ASSEMBLY_UPLOADING"))
    }

    func testHealthAndMetricsSayWhatIsLiveAndWhatTheSweepsDid() async throws {
        let server = try EngineTestServer(clock: ManualClock(), retention: retention)
        defer { server.stop() }
        let client = EngineClient(server: server)
        _ = try await client.create(steps: hashStep, expectedUploads: 1)
        try sweep(server).sweep()
        let health = try JSONValue.parse(try await client.http.send(HTTPRequest(method: "GET", url: client.base + "/healthz")).body)
        XCTAssertEqual(health["ok"], .string("ENGINE_RUNNING"))
        XCTAssertEqual(health["live_assemblies"], .int(1))
        XCTAssertEqual(health["stored_assemblies"], .int(1))
        XCTAssertGreaterThan(health["sweeps"]?.intValue ?? 0, 0)
        let metrics = try await client.http.send(HTTPRequest(method: "GET", url: client.base + "/metrics"))
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: metrics.body, as: UTF8.self)
        for line in ["pipeline_live_assemblies 1", "# TYPE pipeline_sweeps_total counter", "pipeline_stored_assemblies 1"] {
            XCTAssertTrue(text.contains(line + "\n"), "\(line) in:\n\(text)")
        }
        let stored = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("pipeline_stored_bytes ") }?.split(separator: " ").last.flatMap { Int($0) })
        XCTAssertGreaterThan(stored, 0)
    }
}
