import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// File names as people write them (`#`, `%`, `?`, spaces, accents composed and decomposed) go
/// through a run on the embedded engine: uploaded, processed, their `file://` result URLs
/// percent-encoded, downloaded under their own names.
final class RealNamesTests: XCTestCase {
    func testNamesWithURLSyntaxAndAccentsRunAndDownload() async throws {
        let directory = try TemporaryDirectory(prefix: "real-names")
        defer { directory.remove() }
        let names = ["Print Edition #42.png", "100% done?.png", "caf\u{E9} composed.png", "cafe\u{301} decomposed.png"]
        for name in names { try directory.write("images/" + name, data: TestImages.png(width: 40, height: 20)) }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                download: build
                steps:
                  small: {robot: /image/resize, use: ":original", width: 20, result: true}
            """)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let downloaded = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/build/small")
        XCTAssertEqual(Set(downloaded.map { Array($0.unicodeScalars) }), Set(names.map { Array($0.unicodeScalars) }), "every name as it was, scalar for scalar")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let urls = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["small"]?.arrayValue ?? [] }.compactMap { $0["url"]?.stringValue }
        XCTAssertEqual(urls.count, names.count)
        for url in urls {
            XCTAssertFalse(url.contains("#") || url.contains(" ") || url.contains("?"), "percent-encoded: \(url)")
            let path = try XCTUnwrap(URL(string: url)?.path, url)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the URL names the stored result: \(url)")
        }
    }
}
