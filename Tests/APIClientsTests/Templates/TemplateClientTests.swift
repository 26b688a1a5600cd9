import Basics
import APIClients
import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Synchronization
import XCTest

/// The Templates listing against services that page wrongly: it always ends.
final class TemplateClientTests: XCTestCase {
    /// Answers every `GET /templates` with a full page: the same one, or always new Templates.
    private final class EndlessPages: HTTPServerHandler {
        let repeatsItself: Bool
        let requests = Atomic<Int>(0)

        init(repeatsItself: Bool) { self.repeatsItself = repeatsItself }

        func plan(_ head: RequestHead) -> RequestPlan {
            let page = requests.wrappingAdd(1, ordering: .relaxed).newValue
            let first = repeatsItself ? 0 : (page - 1) * 500
            let items = (first..<first + 500).map { index in
                JSONValue.object(["id": .string(String(format: "%032x", index)), "name": .string("template-\(index)"), "content": .object([:])])
            }
            return .respond(.json(200, JSONValue.object(["items": .array(items)]).serialized()))
        }
    }

    /// Lists `total` Templates `perPage` at a time, whatever page size is asked for, with the `count`.
    private final class ShortPages: HTTPServerHandler {
        let total: Int
        let perPage: Int
        let requests = Atomic<Int>(0)

        init(total: Int, perPage: Int) { (self.total, self.perPage) = (total, perPage) }

        func plan(_ head: RequestHead) -> RequestPlan {
            requests.wrappingAdd(1, ordering: .relaxed)
            let page = (try? JSONValue.parse(Data((head.query["params"] ?? "{}").utf8)))?["page"]?.intValue ?? 1
            let first = (page - 1) * perPage
            let items = (first..<min(total, first + perPage)).map { index in
                JSONValue.object(["id": .string(String(format: "%032x", index)), "name": .string("template-\(index)"), "content": .object([:])])
            }
            return .respond(.json(200, JSONValue.object(["items": .array(items), "count": .int(total)]).serialized()))
        }
    }

    func testShortPagesAreFollowedUntilTheCountIsReached() async throws {
        let handler = ShortPages(total: 120, perPage: 50)
        let server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: handler)
        defer { server.stop() }
        let client = TemplateClient(http: HTTPClient(), endpoint: "http://127.0.0.1:\(server.port)", authKey: nil, signer: nil, lifetime: .seconds(60))
        let all = try await client.list()
        XCTAssertEqual(all.count, 120)
        XCTAssertEqual(handler.requests.load(ordering: .relaxed), 3)
    }

    private func list(_ handler: EndlessPages) async throws -> [RemoteTemplate] {
        let server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: handler)
        defer { server.stop() }
        let client = TemplateClient(http: HTTPClient(), endpoint: "http://127.0.0.1:\(server.port)", authKey: nil, signer: nil, lifetime: .seconds(60))
        return try await client.list()
    }

    func testAPageThatBringsNothingNewEndsTheListing() async throws {
        let handler = EndlessPages(repeatsItself: true)
        let all = try await list(handler)
        XCTAssertEqual(all.count, 500)
        XCTAssertEqual(handler.requests.load(ordering: .relaxed), 2)
    }

    func testAServiceThatNeverStopsPagingIsAnError() async throws {
        let handler = EndlessPages(repeatsItself: false)
        do {
            _ = try await list(handler)
            XCTFail("an endless listing must end")
        } catch {
            XCTAssertTrue("\(error)".contains("TOO_MANY_TEMPLATES"), "\(error)")
        }
        XCTAssertEqual(handler.requests.load(ordering: .relaxed), 200)
    }

    /// Refuses the first requests for load (429 with `retryIn: 0`, then 503 with `Retry-After: 1`),
    /// then lists one Template; records each request's signature.
    private final class BusyThenListing: HTTPServerHandler {
        let signatures = Mutex<[String]>([])

        func plan(_ head: RequestHead) -> RequestPlan {
            let count = signatures.withLock { $0.append(head.query["signature"] ?? ""); return $0.count }
            switch count {
            case 1:
                return .respond(.json(429, #"{"error":"RATE_LIMIT_REACHED","message":"slow down","info":{"retryIn":0}}"#))
            case 2:
                return .respond(.json(503, #"{"error":"SERVICE_UNAVAILABLE","message":"busy"}"#, headers: [("Retry-After", "1")]))
            default:
                let item = JSONValue.object(["id": .string(String(repeating: "a", count: 32)), "name": .string("thumbs"), "content": .object([:])])
                return .respond(.json(200, JSONValue.object(["items": .array([item]), "count": .int(1)]).serialized()))
            }
        }
    }

    func testARequestRefusedForLoadIsSentAgainSignedAfresh() async throws {
        let handler = BusyThenListing()
        let server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: handler)
        defer { server.stop() }
        let clock = ImpatientClock()
        let client = TemplateClient(
            http: HTTPClient(), endpoint: "http://127.0.0.1:\(server.port)", authKey: "key", signer: SecretSigner(secret: "s"), lifetime: .seconds(60),
            waitClock: clock)
        let all = try await client.list()
        XCTAssertEqual(all.map(\.name), ["thumbs"])
        let signatures = handler.signatures.withLock { $0 }
        XCTAssertEqual(signatures.count, 3)
        XCTAssertEqual(Set(signatures).count, 3, "each attempt signed afresh")
        XCTAssertEqual(clock.sleeps, [.seconds(1), .seconds(1)], "a backoff of 1 s (retryIn 0 is no advice), then Retry-After's 1 s")
    }
}
