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
            let path = try XCTUnwrap(ResultURLs.path(url, resultsFolder: directory.path), url)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the URL names the stored result: \(url)")
        }
        // The report shows each source and its result by name, each with its preview.
        let report = await CLIHarness.run(["report", directory.path + "/pipeline.yml"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: directory.path + "/report.html", encoding: .utf8)
        for name in names { XCTAssertTrue(html.contains(MarkupText.html("images/" + name)), name) }
        XCTAssertEqual(html.components(separatedBy: "data:image/jpeg;base64,").count - 1, 2 * names.count, "a preview of every source and result")
    }

    /// One name in two folders, and two sources that would meet as WebP, each get their own
    /// download path below the pattern's fixed prefix; results.json names it; a file the ledger
    /// lists but no download recorded writing (an old flat layout, or a forged ledger) stays, and
    /// a moved source's download follows it.
    func testDownloadsKeepTheSourcesFoldersAndResultsNameThem() async throws {
        let directory = try TemporaryDirectory(prefix: "download-layout")
        defer { directory.remove() }
        for (path, width) in [("2023/01/IMG_1024.png", 40), ("2024/07/IMG_1024.png", 60), ("a.png", 30), ("a.PNG", 50)] {
            try directory.write("photos/" + path, data: TestImages.png(width: width, height: 20))
        }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              photos:
                inputs: ["photos/**/*.{png,PNG}"]
                download: build/img
                steps:
                  w20: {robot: /image/resize, use: ":original", width: 20, format: webp, result: true}
            """)
        // What an earlier version wrote, flat, and listed in its ledger.
        try directory.write("build/img/w20/IMG_1024.webp", data: Data("old".utf8))
        try directory.write(".pipeline/manifests/pipeline/downloads.json", data: Data(#"{"build/img": ["w20/IMG_1024.webp"]}"#.utf8))
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let expected = ["w20/2023/01/IMG_1024.webp", "w20/2024/07/IMG_1024.webp", "w20/a.png.webp", "w20/a.PNG.webp"]
        XCTAssertEqual(try filesBelow(directory.path + "/build/img"), Set(expected + ["w20/IMG_1024.webp"]), "the unrecorded flat file stays")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        let written = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["w20"]?.arrayValue ?? [] }
        var bySource: [String: String] = [:]
        for file in written { bySource[file["source"]?.stringValue ?? "?"] = file["local_path"]?.stringValue }
        XCTAssertEqual(bySource, [
            "photos/2023/01/IMG_1024.png": "build/img/w20/2023/01/IMG_1024.webp", "photos/2024/07/IMG_1024.png": "build/img/w20/2024/07/IMG_1024.webp",
            "photos/a.png": "build/img/w20/a.png.webp", "photos/a.PNG": "build/img/w20/a.PNG.webp",
        ])
        for (_, local) in bySource { XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/" + local), local) }
        // Each download is its own source's result: widths 40 and 60 sources, both made 20 wide, differ in height.
        let first = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/img/w20/2023/01/IMG_1024.webp"))
        let second = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/img/w20/2024/07/IMG_1024.webp"))
        XCTAssertNotEqual(first, second)

        // A source moved to another folder: its download moves, and the emptied folders go.
        try FileManager.default.createDirectory(atPath: directory.path + "/photos/2025", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: directory.path + "/photos/2023/01/IMG_1024.png", toPath: directory.path + "/photos/2025/IMG_1024.png")
        let again = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try filesBelow(directory.path + "/build/img"), ["w20/2025/IMG_1024.webp", "w20/2024/07/IMG_1024.webp", "w20/a.png.webp", "w20/a.PNG.webp", "w20/IMG_1024.webp"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/build/img/w20/2023"), "emptied folders are removed")
    }

    private func filesBelow(_ folder: String) throws -> Set<String> {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: folder))
        var files: Set<String> = []
        while let path = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { files.insert(path) }
        }
        return files
    }
}
