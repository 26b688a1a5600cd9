import Foundation
import HTTPClient
import TestSupport
import APIClients
import XCTest

/// What the tus client must do against any tus server; run against litestar-tus (a server no
/// one here wrote) and against the engine of `pipeline serve`.
struct TusScenarios {
    let makeServer: @Sendable () throws -> any TusTestServer
    func filesArriveByteForByte() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let fixture = try UploadFixture()
        let sizes = ["empty": 0, "small": 1_000, "medium": 3_000_000, "large": 9_000_001]
        var files: [(String, Data)] = []
        for (name, size) in sizes.sorted(by: { $0.key < $1.key }) { files.append(try fixture.file(name, size: size)) }
        let uploads = files.map { UploadFile(path: $0.0, metadata: ["filename": "x", "filetype": "application/octet-stream"]) }
        let results = try await fixture.uploader(peers.endpoint).upload(uploads) { _ in }
        for ((path, data), result) in zip(files, results) {
            let upload = try result.get()
            XCTAssertEqual(upload.size, Int64(data.count), path)
            XCTAssertEqual(try peers.storedBytes(of: upload.url), data, path)
        }
        XCTAssertEqual(fixture.stateEntries, [], "resume entries are removed once uploads complete")
    }

    func chunkedUploadWithChecksums() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("chunked.bin", size: 5 * 1024 * 1024 + 3)
        let (upload, events) = try await fixture.upload(path, to: peers.endpoint, chunkSize: 1 << 20, checksum: .algorithm(.sha256))
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
        let confirmed = Set(events.map(\.confirmed))
        XCTAssertTrue(confirmed.isSuperset(of: [1 << 20, 2 << 20, 3 << 20, 4 << 20, 5 << 20, Int64(data.count)]), "\(confirmed.sorted())")
    }

    func aSmallFileWithAChecksumIsOneRequest() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        // Any PATCH would fail: the file and its checksum go in the creating POST.
        let (proxy, endpoint) = try peers.faulty(["PATCH:*:status=500"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("small.bin", size: 10_000)
        for checksum in [UploadOptions.ChecksumMode.automatic, .algorithm(.sha1)] {
            let (upload, _) = try await fixture.upload(path, to: endpoint, checksum: checksum)
            XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
        }
    }

    func aRefusedCreationBodyIsNotAbandonedForANewUpload() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        // The first creating POST reaches the server (which creates the upload) but comes back 460.
        let (proxy, endpoint) = try peers.faulty(["POST:1:rewrite=460"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("refused.bin", size: 100_000)
        let (upload, _) = try await fixture.upload(path, to: endpoint)
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
        XCTAssertEqual(peers.createdUploads(), 1, "the upload the refused request made is used, not left behind")
    }

    func resumesAPartialUploadFromTheServersOffset() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("partial.bin", size: 4_000_000)
        // A previous run created the upload and sent the first 1.5 MB, then stopped.
        let client = TusClient(http: fixture.http, endpoint: peers.endpoint)
        let created = try await client.create(length: Int64(data.count), metadata: ["filename": "p", "filetype": "application/octet-stream"])
        _ = try await client.append(to: created.url, offset: 0, body: .file(path: path, offset: 0, length: 1_500_000), checksum: nil)
        let file = try LocalFile.identify(path)
        try ResumeStore(directory: fixture.state.path).save(
            .init(uploadURL: created.url, endpoint: peers.endpoint, path: file.path, size: file.size, expires: nil),
            for: ResumeStore.key(endpoint: peers.endpoint, file: file))

        let (upload, events) = try await fixture.upload(path, to: peers.endpoint)
        XCTAssertEqual(upload.url, created.url, "the stored upload is resumed, not created anew")
        XCTAssertEqual(upload.resumedFrom, 1_500_000)
        XCTAssertEqual(events.map { $0.confirmed + $0.inFlight }.max(), Int64(data.count))
        XCTAssertFalse(events.contains { $0.confirmed < 1_500_000 && $0.inFlight > 0 }, "no byte before the server's offset is sent again")
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
    }

    func recoversFromAConnectionDroppedMidPatch() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["PATCH:1:drop=2097152"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("dropped.bin", size: 8_000_000)
        let (upload, events) = try await fixture.upload(path, to: endpoint, checksum: .off)
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
        let resumedAt = events.map(\.confirmed).filter { $0 > 0 && $0 < Int64(data.count) }
        XCTAssertFalse(resumedAt.isEmpty, "after the drop the upload continued from the bytes the server kept")
    }

    func offsetConflictIsResolvedWithHead() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["PATCH:1:status=409"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("conflict.bin", size: 6_000_000)
        let (upload, _) = try await fixture.upload(path, to: endpoint)
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
    }

    func lockedAndChecksumMismatchAreRetried() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["PATCH:1:status=423", "PATCH:2:status=460"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("retried.bin", size: 6_000_000)
        let (upload, _) = try await fixture.upload(path, to: endpoint, checksum: .algorithm(.sha1))
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
    }

    func storedURLThatIsGoneStartsANewUpload() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("gone.bin", size: 5_000_000)
        let stale = peers.endpoint + "00000000000000000000000000000000"
        let file = try LocalFile.identify(path)
        try ResumeStore(directory: fixture.state.path).save(
            .init(uploadURL: stale, endpoint: peers.endpoint, path: file.path, size: file.size, expires: nil),
            for: ResumeStore.key(endpoint: peers.endpoint, file: file))
        let (upload, _) = try await fixture.upload(path, to: peers.endpoint)
        XCTAssertNotEqual(upload.url, stale)
        XCTAssertEqual(upload.resumedFrom, 0)
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
    }

    func otherClientErrorsFailAtOnceWithTheServersAnswer() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["POST:1:status=403", "POST:2:status=403", "POST:3:status=403"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, _) = try fixture.file("refused.bin", size: 10_000_000)
        let clock = ImpatientClock()
        do {
            _ = try await fixture.upload(path, to: endpoint, clock: clock)
            XCTFail("a 403 on creation must fail the upload")
        } catch let error as TusError {
            XCTAssertEqual(error.kind, .rejected)
            XCTAssertEqual(error.status, 403)
            XCTAssertTrue(error.description.hasPrefix("POST \(endpoint): HTTP 403"), error.description)
        }
        XCTAssertEqual(clock.sleeps, [], "no retries for a refusal")
    }

    func unreachableServerIsAnErrorNamingTheRequest() async throws {
        let fixture = try UploadFixture()
        let (path, _) = try fixture.file("nowhere.bin", size: 10)
        do {
            _ = try await fixture.upload(path, to: "http://127.0.0.1:9/files/")
            XCTFail("nothing listens on port 9")
        } catch let error as TusError {
            XCTAssertEqual(error.kind, .transport)
            XCTAssertTrue(error.description.hasPrefix("OPTIONS http://127.0.0.1:9/files/"), error.description)
        }
    }

    func aServerThatForgetsEveryUploadIsNotAnEndlessLoop() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["PATCH:*:status=404"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        // Larger than what goes in the creating POST, so it needs a PATCH.
        let (path, _) = try fixture.file("forgotten.bin", size: 5_000_000)
        do {
            _ = try await fixture.upload(path, to: endpoint, checksum: .off)
            XCTFail("an upload the server keeps forgetting cannot succeed")
        } catch let error as TusError {
            XCTAssertEqual(error.kind, .gone, error.description)
        }
        // One creation, then one per retry delay (three in the fixture): not thousands.
        XCTAssertLessThanOrEqual(peers.createdUploads(), 4)
    }

    func aConflictOnCreationIsNotRetried() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["POST:*:status=409"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, _) = try fixture.file("conflict.bin", size: 1000)
        let clock = ImpatientClock()
        do {
            _ = try await fixture.upload(path, to: endpoint, checksum: .off, retryDelays: [.seconds(60), .seconds(60)], clock: clock)
            XCTFail("a 409 to the creating POST is final")
        } catch let error as TusError {
            XCTAssertEqual(error.kind, .rejected, error.description)
            XCTAssertEqual(error.status, 409)
        }
        XCTAssertEqual(clock.sleeps, [], "no retry delay was waited")
    }

    func aProxyBodyLimitIsMetWithSmallerPatches() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["PATCH:*:limit=1048576", "POST:*:limit=1048576"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (small, smallData) = try fixture.file("small.bin", size: 1_500_000)
        let (large, largeData) = try fixture.file("large.bin", size: 5_000_003)
        for (checksum, (path, data)) in [(UploadOptions.ChecksumMode.off, (small, smallData)), (.automatic, (large, largeData))] {
            let (upload, events) = try await fixture.upload(path, to: endpoint, checksum: checksum)
            XCTAssertEqual(try peers.storedBytes(of: upload.url), data, path)
            let offsets = Set(events.map(\.confirmed)).sorted()
            let steps = zip(offsets, offsets.dropFirst()).map { $1 - $0 }
            XCTAssertLessThanOrEqual(steps.max() ?? 0, 1 << 20, "no PATCH body above the proxy's limit got through: \(offsets)")
        }
    }

    func aCreationWithUploadAnsweredWith204Counts() async throws {
        let peers = try makeServer()
        defer { peers.stop() }
        let (proxy, endpoint) = try peers.faulty(["POST:1:rewrite=204"])
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("inline.bin", size: 50_000)
        let (upload, _) = try await fixture.upload(path, to: endpoint, checksum: .off)
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
        XCTAssertEqual(peers.createdUploads(), 1, "the bytes stored by the first POST were not sent again in a new upload")
    }
}
