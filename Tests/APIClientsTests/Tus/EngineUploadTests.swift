import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// The tus client against the engine of `pipeline serve`.
final class EngineUploadTests: XCTestCase {
    private let scenarios = TusScenarios { try EngineTestServer() }

    func testFilesArriveByteForByte() async throws { try await scenarios.filesArriveByteForByte() }

    func testChunkedUploadWithChecksums() async throws { try await scenarios.chunkedUploadWithChecksums() }

    func testASmallFileWithAChecksumIsOneRequest() async throws { try await scenarios.aSmallFileWithAChecksumIsOneRequest() }

    func testARefusedCreationBodyIsNotAbandonedForANewUpload() async throws { try await scenarios.aRefusedCreationBodyIsNotAbandonedForANewUpload() }

    func testResumesAPartialUploadFromTheServersOffset() async throws { try await scenarios.resumesAPartialUploadFromTheServersOffset() }

    func testRecoversFromAConnectionDroppedMidPatch() async throws { try await scenarios.recoversFromAConnectionDroppedMidPatch() }

    func testOffsetConflictIsResolvedWithHead() async throws { try await scenarios.offsetConflictIsResolvedWithHead() }

    func testLockedAndChecksumMismatchAreRetried() async throws { try await scenarios.lockedAndChecksumMismatchAreRetried() }

    func testStoredURLThatIsGoneStartsANewUpload() async throws { try await scenarios.storedURLThatIsGoneStartsANewUpload() }

    func testOtherClientErrorsFailAtOnceWithTheServersAnswer() async throws { try await scenarios.otherClientErrorsFailAtOnceWithTheServersAnswer() }

    func testUnreachableServerIsAnErrorNamingTheRequest() async throws { try await scenarios.unreachableServerIsAnErrorNamingTheRequest() }

    func testAServerThatForgetsEveryUploadIsNotAnEndlessLoop() async throws { try await scenarios.aServerThatForgetsEveryUploadIsNotAnEndlessLoop() }

    func testAConflictOnCreationIsNotRetried() async throws { try await scenarios.aConflictOnCreationIsNotRetried() }

    func testAProxyBodyLimitIsMetWithSmallerPatches() async throws { try await scenarios.aProxyBodyLimitIsMetWithSmallerPatches() }

    func testACreationWithUploadAnsweredWith204Counts() async throws { try await scenarios.aCreationWithUploadAnsweredWith204Counts() }

    /// Behind a proxy that drops a checksum trailer and its announcement, the engine says it
    /// verified nothing; the client then sends every later PATCH's checksum in a header.
    func testAClientWhoseTrailerWasDroppedSendsHeaders() async throws {
        let peers = try EngineTestServer()
        defer { peers.stop() }
        let log = try TemporaryDirectory(prefix: "strip-trailers")
        defer { log.remove() }
        let proxy = try ServerProcess("/usr/bin/env", [
            "python3", PackageRoot.path + "/Tests/APIClientsTests/Tus/Fixtures/fault_proxy.py", String(peers.port), "PATCH:*:strip-trailers",
        ], errors: log.path + "/proxy.log")
        defer { proxy.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("large.bin", size: 9_000_000)
        let (upload, _) = try await fixture.upload(path, to: proxy.url(URL(string: peers.endpoint)?.path ?? "/"), chunkSize: 2_000_000, checksum: .automatic)
        XCTAssertEqual(try peers.storedBytes(of: upload.url), data)
        let patches = try String(contentsOfFile: log.path + "/proxy.log", encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("PATCH") }
        XCTAssertGreaterThan(patches.count, 1, "the file goes in several PATCHes")
        XCTAssertTrue(patches[0].hasSuffix("checksum=trailer"), "the first carries a trailer, which is dropped: \(patches)")
        XCTAssertTrue(patches.dropFirst().allSatisfy { $0.hasSuffix("checksum=header") }, "every later one a header: \(patches)")
    }
}
