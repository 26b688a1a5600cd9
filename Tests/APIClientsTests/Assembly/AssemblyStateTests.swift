import APIClients
import Foundation
import Wire
import XCTest

/// A status read as the service writes it, whatever shape its result files take.
final class AssemblyStateTests: XCTestCase {
    func testResultsAsTheServiceWritesThem() throws {
        let text = """
            {"ok": "ASSEMBLY_COMPLETED", "results": {"thumb": [
              {"id": "r1", "name": "a.jpg", "original_id": ["u1", "u2"], "url": "http://s3/a.jpg", "ssl_url": "https://s3/a.jpg",
               "signed_ssl_url": "https://s3/a.jpg?sig=1", "size": 3},
              {"id": "r2", "name": "b.jpg", "original_id": "u3", "url": "http://s3/b.jpg", "size": 4}]}}
            """
        let state = AssemblyState(try XCTUnwrap(AssemblyStatusDocument.decode(Data(text.utf8))))
        let files = try XCTUnwrap(state.results["thumb"])
        XCTAssertEqual(files.map(\.originalID), ["u1", "u3"], "a list names its first source")
        XCTAssertEqual(files.map(\.url), ["https://s3/a.jpg?sig=1", "http://s3/b.jpg"], "a private bucket's signed URL first")
    }
}
