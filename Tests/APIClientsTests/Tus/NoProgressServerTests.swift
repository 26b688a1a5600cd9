import Foundation
import HTTPClient
import HTTPServer
import APIClients
import Synchronization
import TestSupport
import XCTest

/// A tus server that answers every PATCH 204 and keeps none of the bytes: the upload ends with
/// an error after its retries, never a loop sending the same bytes forever.
final class NoProgressServerTests: XCTestCase {
    private final class KeepsNothing: HTTPServerHandler {
        let patches = Atomic<Int>(0)

        func plan(_ head: RequestHead) -> RequestPlan {
            let tus: [(name: String, value: String)] = [("Tus-Resumable", "1.0.0")]
            switch head.method {
            case "OPTIONS": return .respond(ServerResponse(status: 204, headers: tus + [("Tus-Version", "1.0.0"), ("Tus-Extension", "creation")]))
            case "POST": return .respond(ServerResponse(status: 201, headers: tus + [("Location", "/files/1"), ("Upload-Offset", "0")]))
            case "HEAD": return .respond(ServerResponse(status: 200, headers: tus + [("Upload-Offset", "0"), ("Upload-Length", "100000")]))
            default:
                patches.wrappingAdd(1, ordering: .relaxed)
                return .collect(limit: 1 << 20) { _ in ServerResponse(status: 204, headers: tus + [("Upload-Offset", "0")]) }
            }
        }
    }

    func testAServerThatKeepsNothingEndsTheUpload() async throws {
        let handler = KeepsNothing()
        let server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: handler)
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("a.bin", data: Data(repeating: 1, count: 100_000))
        let options = UploadOptions(retryDelays: [.zero, .milliseconds(10), .milliseconds(10)], checksum: .off, creationWithUploadLimit: 0)
        let uploader = TusUploader(endpoint: "http://127.0.0.1:\(server.port)/files/", options: options, http: HTTPClient())
        let results = try await uploader.upload([UploadFile(path: path, metadata: [:])]) { _ in }
        guard case .failure(let error) = results[0] else { return XCTFail("an upload the server kept nothing of succeeded") }
        XCTAssertTrue("\(error)".contains("kept none of the"), "\(error)")
        XCTAssertLessThan(handler.patches.load(ordering: .relaxed), 10, "a few attempts, not a loop")
    }
}
