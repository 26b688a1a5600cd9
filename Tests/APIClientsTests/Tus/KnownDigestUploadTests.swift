import APIClients
import Crypto
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// A file that goes in one request is checksummed with the digest its plan measured, not hashed
/// again; a file changed since (its time differs, or the server finds a mismatch) is hashed.
final class KnownDigestUploadTests: XCTestCase {
    private func upload(_ file: UploadFile, to server: EngineTestServer, retries: [Duration]) async throws -> Result<UploadResult, any Error> {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let options = UploadOptions(retryDelays: retries, checksum: .algorithm(.sha256), stateDirectory: state.path)
        return try await TusUploader(endpoint: server.endpoint, options: options, http: HTTPClient()).upload([file]) { _ in }[0]
    }

    func testThePlansDigestIsSentAndAMismatchFallsBackToHashing() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let fixture = try UploadFixture()
        let (path, data) = try fixture.file("known.bin", size: 300_000)
        let modified = try LocalFile.identify(path).modified
        let right = SHA256.hex(Array(data))
        let wrong = String(repeating: "0", count: 64)

        let sent = try await upload(UploadFile(path: path, metadata: [:], known: (right, modified)), to: server, retries: [])
        XCTAssertEqual(try server.storedBytes(of: try sent.get().url), data)

        // Proof that the known digest is what is sent: a wrong one fails when no retry is allowed...
        let refused = try await upload(UploadFile(path: path, metadata: [:], known: (wrong, modified)), to: server, retries: [])
        XCTAssertThrowsError(try refused.get()) { XCTAssertTrue("\($0)".contains("460"), "\($0)") }
        // ...and with a retry the file is hashed and arrives whole.
        let retried = try await upload(UploadFile(path: path, metadata: [:], known: (wrong, modified)), to: server, retries: [.zero])
        XCTAssertEqual(try server.storedBytes(of: try retried.get().url), data)
        // A digest of another version of the file (another time) is never used.
        let stale = try await upload(UploadFile(path: path, metadata: [:], known: (wrong, modified - 1)), to: server, retries: [])
        XCTAssertEqual(try server.storedBytes(of: try stale.get().url), data)
    }
}
