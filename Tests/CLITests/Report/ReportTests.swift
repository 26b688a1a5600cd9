import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline report` rendered by a real browser (headless Chromium): every Assembly and result
/// is in the DOM, a failure shows with its message, the compare view pairs old and new, and the
/// screenshot is a page of pictures, not a blank one.
final class ReportTests: XCTestCase {
    private func pipeline(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments, in: directory.path)
    }

    private func chromium(_ arguments: [String]) throws -> ProcessResult {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw XCTSkip("chromium is not installed (scripts/setup.sh installs it)")
        }
        // As root Chromium needs --no-sandbox; a fresh profile folder keeps runs apart.
        let profile = try TemporaryDirectory(prefix: "chromium-profile")
        defer { profile.remove() }
        return try ProcessRunner.run("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)"] + arguments)
    }

    func testTheReportShowsEveryAssemblyItsResultsAFailureAndWhatChanged() throws {
        let directory = try TemporaryDirectory(prefix: "report")
        defer { directory.remove() }
        let site = PackageRoot.path + "/examples/site"
        for name in ["pipeline.yml", "policy.yml"] { try FileManager.default.copyItem(atPath: site + "/" + name, toPath: directory.path + "/" + name) }
        try FileManager.default.copyItem(atPath: site + "/images", toPath: directory.path + "/images")
        // A job of its own whose one Assembly fails: an image whose data is damaged.
        try directory.write("broken/bad.png", data: TestImages.corruptPNG(width: 8, height: 8))
        try (try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8) + """

              broken:
                inputs: [broken/*.png]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 50, result: true}

            """).write(toFile: directory.path + "/pipeline.yml", atomically: false, encoding: .utf8)
        XCTAssertEqual(try pipeline(["run", "pipeline.yml"], in: directory).status, 1)
        let old = directory.path + "/old-results.json"
        try FileManager.default.copyItem(atPath: directory.path + "/build/results.json", toPath: old)
        let manifest = directory.path + "/pipeline.yml"
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "width: 200", with: "width: 120")
            .write(toFile: manifest, atomically: false, encoding: .utf8)
        _ = try pipeline(["run", "pipeline.yml"], in: directory)
        let report = try pipeline(["report", "pipeline.yml", "--compare", old], in: directory)
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.hasPrefix("Wrote build/report.html ("), report.stdout)
        let page = directory.path + "/build/report.html"
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertFalse(html.contains("http://") || html.contains("https://") && html.contains("<script src"), "self-contained")

        let dom = try chromium(["--dump-dom", "file://" + page])
        XCTAssertEqual(dom.status, 0, dom.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json")))
        let entries = results["assemblies"]?.arrayValue ?? []
        XCTAssertEqual(dom.stdout.components(separatedBy: "data-assembly=").count - 1, entries.count, "every Assembly")
        let resultCount = entries.reduce(0) { $0 + ($1["results"]?.objectValue?.values.reduce(0) { $0 + ($1.arrayValue?.count ?? 0) } ?? 0) }
        let sourceCount = entries.reduce(0) { $0 + ($1["files"]?.arrayValue?.count ?? 0) }
        XCTAssertGreaterThan(resultCount, 3)
        XCTAssertGreaterThanOrEqual(dom.stdout.components(separatedBy: "<figure class=\"file\">").count - 1, sourceCount + resultCount, "every source and result")
        XCTAssertTrue(dom.stdout.contains("role=\"alert\">IMAGE_"), "the failure and its message: \(dom.stdout.prefix(300))")
        XCTAssertTrue(dom.stdout.contains("Changed results (1)"), "the compare view pairs the one result that changed")
        XCTAssertTrue(dom.stdout.contains("alt=\"hero.png (image/png)\""), "previews have alt text")
        XCTAssertTrue(dom.stdout.contains("<form id=\"filters\">"), "the filters show once the script ran")

        let shot = directory.path + "/shot.png"
        let screenshot = try chromium(["--screenshot=\(shot)", "--window-size=1200,1400", "file://" + page])
        XCTAssertEqual(screenshot.status, 0, screenshot.stderr)
        let size = (try FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(size, 50_000, "a page of previews, not a blank one (a blank page is a few KB)")
        // Kept where a person can look at it after the suite (the build folder is not committed).
        let kept = PackageRoot.path + "/.build/test-artifacts/report.png"
        try? FileManager.default.createDirectory(atPath: (kept as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: kept)
        try? FileManager.default.copyItem(atPath: shot, toPath: kept)
    }

    /// A committed file name with a quote and a combining mark (one `Character`, two scalars) stays
    /// text: it opens no element and no attribute, and the page's policy runs only its own script.
    func testANameCannotBreakOutOfItsAttribute() throws {
        let directory = try TemporaryDirectory(prefix: "report-name")
        defer { directory.remove() }
        let name = "a\"\u{301}><b id=pwned autofocus onfocus=alert(1)>\u{301}.txt"
        try directory.write("files/" + name, "x")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              hashes:
                inputs: [files/*.txt]
                steps: {h: {robot: /file/hash, use: ':original', result: true}}
            """)
        XCTAssertEqual(try pipeline(["run", "pipeline.yml"], in: directory).status, 0)
        XCTAssertEqual(try pipeline(["report", "pipeline.yml"], in: directory).status, 0)
        let page = directory.path + "/report.html"
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertFalse(html.unicodeScalars.split(separator: "\n").contains { String(String.UnicodeScalarView($0)).contains("\"\u{301}>") }, "the quote is escaped")
        XCTAssertTrue(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"), html)
        let dom = try chromium(["--dump-dom", "file://" + page])
        XCTAssertEqual(dom.status, 0, dom.stderr)
        XCTAssertFalse(dom.stdout.contains("<b id=\"pwned\""), "no element from the name: \(dom.stdout)")
        XCTAssertTrue(dom.stdout.contains("<form id=\"filters\">"), "the page's own script still runs under its policy")
    }
}
