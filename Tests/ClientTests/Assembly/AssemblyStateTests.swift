import Basics
import Client
import XCTest

/// A status read as the service writes it, whatever shape its result files take.
final class AssemblyStateTests: XCTestCase {
    func testResultsAsTheServiceWritesThem() throws {
        let state = AssemblyState(.object([
            "ok": .string("ASSEMBLY_COMPLETED"),
            "results": .object(["thumb": .array([
                .object(["id": .string("r1"), "name": .string("a.jpg"), "original_id": .array([.string("u1"), .string("u2")]),
                         "url": .string("http://s3/a.jpg"), "ssl_url": .string("https://s3/a.jpg"), "signed_ssl_url": .string("https://s3/a.jpg?sig=1"), "size": .int(3)]),
                .object(["id": .string("r2"), "name": .string("b.jpg"), "original_id": .string("u3"), "url": .string("http://s3/b.jpg"), "size": .int(4)]),
            ])]),
        ]))
        let files = try XCTUnwrap(state.results["thumb"])
        XCTAssertEqual(files.map(\.originalID), ["u1", "u3"], "a list names its first source")
        XCTAssertEqual(files.map(\.url), ["https://s3/a.jpg?sig=1", "http://s3/b.jpg"], "a private bucket's signed URL first")
    }
}
