import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import XCTest

/// `RequestHead.whenEnded`: what a handler asks to run once its request has ended (its answer
/// written whole, or the connection gone) runs once, after the answer reached the client.
final class RequestEndTests: XCTestCase {
    /// Counts the ends of the requests it answers.
    private final class CountingHandler: HTTPServerHandler {
        let ended = Mutex(0)

        func plan(_ head: RequestHead) -> RequestPlan {
            head.whenEnded { [self] in ended.withLock { $0 += 1 } }
            return .respond(.json(200, #"{"ok":true}"#))
        }
    }

    func testTheActionRunsOnceEachRequestHasEnded() async throws {
        let handler = CountingHandler()
        let server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: handler)
        defer { server.stop() }
        let http = HTTPClient()
        for expected in 1...3 {
            let response = try await http.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/"))
            XCTAssertEqual(response.status, 200)
            let counted = await eventually { handler.ended.withLock { $0 } == expected }
            XCTAssertTrue(counted, "request \(expected) ended once: \(handler.ended.withLock { $0 })")
        }
    }
}
