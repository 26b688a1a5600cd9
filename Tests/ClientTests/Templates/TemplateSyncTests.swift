import APIClients
import Basics
import Client
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// Syncing Templates by name against the engine, including a creation another run won.
final class TemplateSyncTests: XCTestCase {
    private let declared: [String: DeclaredTemplate] = [
        "site-hashes": (.object(["steps": .object(["h": .object(["robot": .string("/file/hash"), "use": .string(":original")])])]), false),
    ]

    func testACreationThatRacedAnotherRunAdoptsItsTemplate() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // The creating POST reaches the engine, but the answer says the name is taken: as when a
        // parallel shard created the Template between this run's listing and its POST.
        let (proxy, _) = try server.faulty(["POST:1:rewrite=409"])
        defer { proxy.stop() }
        let client = TemplateClient(http: HTTPClient(), endpoint: proxy.url(""), authKey: nil, signer: nil, lifetime: .seconds(60))
        let applied = try await TemplateSync.apply(declared, client: client)
        let listed = try await client.list()
        XCTAssertEqual(listed.map(\.name), ["site-hashes"], "one Template, not two")
        XCTAssertEqual(applied["site-hashes"]?.id, listed.first?.id)
        XCTAssertEqual(applied["site-hashes"]?.action, .unchanged)
    }
}
