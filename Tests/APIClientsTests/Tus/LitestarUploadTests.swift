import TestSupport
import XCTest

/// The tus client against litestar-tus, a tus server from PyPI.
final class LitestarUploadTests: XCTestCase {
    private let scenarios = TusScenarios { try LitestarServer() }

    func testFilesArriveByteForByte() async throws { try await scenarios.filesArriveByteForByte() }

    func testChunkedUploadWithChecksums() async throws { try await scenarios.chunkedUploadWithChecksums() }

    func testASmallFileWithAChecksumIsOneRequest() async throws { try await scenarios.aSmallFileWithAChecksumIsOneRequest() }

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
}
