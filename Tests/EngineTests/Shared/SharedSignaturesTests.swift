@testable import Engine
import Basics
import Foundation
import TestSupport
import XCTest

/// Used signatures, rate limits and Templates shared by engines on one database.
final class SharedSignaturesTests: SharedStateTestCase {
    func testASignatureTakenByOneEngineIsRefusedByAnotherUntilItExpires() throws {
        let states = try engines(2)
        let (a, b) = (SharedSignatures(state: states[0], warn: { _ in }), SharedSignatures(state: states[1], warn: { _ in }))
        let now = Date()
        XCTAssertTrue(a.insert("sig-1", expires: now.addingTimeInterval(60), now: now))
        XCTAssertFalse(b.insert("sig-1", expires: now.addingTimeInterval(60), now: now), "a replay to another engine is refused")
        XCTAssertFalse(a.insert("sig-1", expires: now.addingTimeInterval(60), now: now))
        XCTAssertTrue(b.insert("sig-2", expires: now.addingTimeInterval(60), now: now))
        let later = now.addingTimeInterval(120)
        XCTAssertTrue(b.insert("sig-1", expires: later.addingTimeInterval(60), now: later), "an expired one is refused for its expiry alone")
        let rows = try states[0].pool.withConnection { try $0.execute("SELECT digest FROM pipeline_signatures") }
        XCTAssertEqual(rows.count, 2)
        for row in 0..<rows.count { XCTAssertFalse(try rows.string(row, "digest")?.contains("sig") ?? true, "only digests are kept") }
    }

    func testTheRateLimitCountsCreationsOnEveryEngine() throws {
        let states = try engines(2)
        let (a, b) = (SharedCreationLimit(state: states[0], limit: 3, window: 60), SharedCreationLimit(state: states[1], limit: 3, window: 60))
        XCTAssertNil(a.admit())
        XCTAssertNil(b.admit())
        XCTAssertNil(a.admit())
        let wait = try XCTUnwrap(b.admit(), "the fourth creation, on either engine, waits")
        XCTAssertGreaterThan(wait, 0)
        XCTAssertLessThanOrEqual(wait, 60)
    }

    func testATemplateMadeThroughOneEngineRunsOnAnotherAndNamesStayUnique() throws {
        let states = try engines(2)
        let (a, b) = (SharedTemplates(state: states[0], warn: { _ in }), SharedTemplates(state: states[1], warn: { _ in }))
        let content = JSONValue.object(["steps": .object(["thumb": .object(["robot": .string("/image/resize"), "width": .int(64)])])])
        guard case .success(let made) = a.create(name: "thumbs", content: content, requireSignatureAuth: false) else { return XCTFail("not made") }
        XCTAssertEqual(b.get(made.id)?.content, content)
        guard case .failure(.nameTaken) = b.create(name: "thumbs", content: content, requireSignatureAuth: false) else { return XCTFail("a name is unique across engines") }
        guard case .success(let renamed) = b.update(made.id, { $0.name = "small" }) else { return XCTFail("not renamed") }
        XCTAssertEqual(a.get(made.id)?.name, renamed.name)
        XCTAssertEqual(a.all.map(\.id), [made.id])
        XCTAssertTrue(b.delete(made.id))
        XCTAssertNil(a.get(made.id))
        XCTAssertFalse(a.delete(made.id))
    }
}
