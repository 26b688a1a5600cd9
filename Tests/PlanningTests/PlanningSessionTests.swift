import Foundation
import Basics
import Planning
import TestSupport
import XCTest

final class PlanningSessionTests: XCTestCase {
    private let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    private let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    private let fox = "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
    private let foxText = "The quick brown fox jumps over the lazy dog"

    private let resizePolicy = """
        version: 1
        robots:
          /file/hash:
            algorithm: {type: string}
          /file/filter:
        """

    /// images/{Z.png, a-b.png, a.png, b.png, sub/c.png, _drafts/d.png, notes.txt, .hidden/e.png}: text
    /// and empty files, whatever their names, which the jobs' robots (hash, filter) take.
    private func makeSite() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory()
        try site.write("images/Z.png", "")
        try site.write("images/a-b.png", "abc")
        try site.write("images/a.png", "abc")
        try site.write("images/b.png", "")
        try site.write("images/sub/c.png", foxText)
        try site.write("images/_drafts/d.png", "draft")
        try site.write("images/notes.txt", "abc")
        try site.write("images/.hidden/e.png", "hidden")
        try site.write("policy.yml", resizePolicy)
        return site
    }

    /// An endpoint other than the hosted service: these plans are not about where results stay
    /// (on the hosted service, a job that neither stores nor downloads them is warned about).
    static let notHosted = ["TRANSLOADIT_ENDPOINT": "http://127.0.0.1:9"]

    private func planManifest(_ manifest: String, in site: TemporaryDirectory, policyPath: String? = nil) throws -> (Loaded<Plan>, String) {
        let path = try site.write("pipeline.yml", manifest)
        return (PlanningSession(environment: Self.notHosted, policyPath: policyPath).plan(manifestPath: path), path)
    }

    private let fullManifest = """
        version: 1
        name: site-images
        policy: policy.yml
        assemblies:
          thumbs:
            inputs:
              - images/**/*.png
              - "!images/_drafts/**"
            batch: 2
            steps:
              thumb:
                robot: /file/hash
                use: :original
                algorithm: sha256
          docs:
            inputs: [images/*.txt]
            batch: all
            steps:
              keep:
                robot: /file/filter
                use: :original
        """

    func testFilesAreFoundSortedHashedAndBatched() throws {
        let site = try makeSite()
        defer { site.remove() }
        let (loaded, path) = try planManifest(fullManifest, in: site)
        XCTAssertEqual(loaded.diagnostics, [])
        let plan = try XCTUnwrap(loaded.value)

        let thumb = JSONValue.object(["steps": .object(["thumb": .object([
            "robot": .string("/file/hash"), "use": .string(":original"), "algorithm": .string("sha256"),
        ])])])
        let keep = JSONValue.object(["steps": .object(["keep": .object([
            "robot": .string("/file/filter"), "use": .string(":original"),
        ])])])
        let expected = Plan(pipeline: "site-images", manifest: path, assemblies: [
            PlannedAssembly(job: "thumbs", instructions: thumb, files: [
                PlannedFile(path: "images/Z.png", size: 0, sha256: empty),
                PlannedFile(path: "images/a-b.png", size: 3, sha256: abc),
            ]),
            PlannedAssembly(job: "thumbs", instructions: thumb, files: [
                PlannedFile(path: "images/a.png", size: 3, sha256: abc),
                PlannedFile(path: "images/b.png", size: 0, sha256: empty),
            ]),
            PlannedAssembly(job: "thumbs", instructions: thumb, files: [
                PlannedFile(path: "images/sub/c.png", size: 43, sha256: fox),
            ]),
            PlannedAssembly(job: "docs", instructions: keep, files: [
                PlannedFile(path: "images/notes.txt", size: 3, sha256: abc),
            ]),
        ])
        XCTAssertEqual(plan, expected)
        XCTAssertEqual(plan.json["pipeline"], .string("site-images"))
        XCTAssertEqual(plan.json["manifest"], .string(path))
    }

    func testPlanningTwiceGivesTheSameBytes() throws {
        let site = try makeSite()
        defer { site.remove() }
        let (first, _) = try planManifest(fullManifest, in: site)
        let (second, _) = try planManifest(fullManifest, in: site)
        let text = try XCTUnwrap(first.value).json.serialized(pretty: true)
        XCTAssertEqual(try XCTUnwrap(second.value).json.serialized(pretty: true), text)
        XCTAssertEqual(try XCTUnwrap(first.value).assemblies.map(\.id), try XCTUnwrap(second.value).assemblies.map(\.id))
    }

    func testNameDefaultsToTheManifestFileName() throws {
        let site = try makeSite()
        defer { site.remove() }
        let manifest = "version: 1\nassemblies:\n  docs:\n    inputs: images/notes.txt\n    steps: {keep: {robot: /file/filter}}\n"
        let (loaded, path) = try planManifest(manifest, in: site)
        XCTAssertEqual(loaded.diagnostics, [])
        XCTAssertEqual(loaded.value?.pipeline, "pipeline")
        XCTAssertEqual(loaded.value?.manifest, path)
        XCTAssertEqual(loaded.value?.assemblies.map { $0.files.map(\.path) }, [["images/notes.txt"]])
    }

    private let twoPatterns = """
        version: 1
        assemblies:
          thumbs:
            inputs:
              - images/*.png
              - images/*.gif
            steps:
              thumb:
                robot: /file/hash
                use: :original
        """

    func testPatternMatchingNothingIsAnErrorAtThePattern() throws {
        let site = try makeSite()
        defer { site.remove() }
        let (loaded, path) = try planManifest(twoPatterns, in: site)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.count, 1)
        let diagnostic = try XCTUnwrap(loaded.diagnostics.first)
        XCTAssertEqual(diagnostic.id, "plan.no-match")
        XCTAssertEqual(diagnostic.severity, .error)
        XCTAssertEqual(diagnostic.message, "pattern 'images/*.gif' matches no files")
        XCTAssertEqual(diagnostic.location, SourceLocation(file: path, line: 6, column: 9))
        XCTAssertTrue(diagnostic.hint?.contains("set 'allow_empty: true' on job 'thumbs'") == true, diagnostic.hint ?? "")
    }

    func testAllowEmptySuppressesNoMatch() throws {
        let site = try makeSite()
        defer { site.remove() }
        let manifest = twoPatterns.replacingOccurrences(of: "    inputs:\n", with: "    allow_empty: true\n    inputs:\n")
        let (loaded, _) = try planManifest(manifest, in: site)
        XCTAssertEqual(loaded.diagnostics, [])
        XCTAssertEqual(loaded.value?.assemblies.map { $0.files.map(\.path) },
                       [["images/Z.png"], ["images/a-b.png"], ["images/a.png"], ["images/b.png"]])
    }

    func testANamedFIFOOrFolderIsSaidToBeNoFile() throws {
        let site = try makeSite()
        defer { site.remove() }
        XCTAssertEqual(mkfifo(site.path + "/images/pipe.png", 0o600), 0)
        let manifest = """
            version: 1
            assemblies:
              odd:
                inputs: [images/pipe.png, images/sub, "images/*.png"]
                steps: {keep: {robot: /file/filter}}
            """
        let (loaded, _) = try planManifest(manifest, in: site)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["plan.not-a-file", "plan.not-a-file"], "\(loaded.diagnostics)")
        XCTAssertEqual(loaded.diagnostics.map(\.message), [
            "'images/pipe.png' is a FIFO, not a regular file; only regular files are inputs",
            "'images/sub' is a folder, not a regular file; only regular files are inputs",
        ])
        XCTAssertEqual(loaded.diagnostics.last?.hint, "to take the files inside it, write 'images/sub/**'")
    }

    func testExclusionsThatRemoveEverythingAreAnErrorAtTheJob() throws {
        let site = try makeSite()
        defer { site.remove() }
        let manifest = """
            version: 1
            assemblies:
              drafts:
                inputs: [images/_drafts/*.png, "!images/**/d.png"]
                steps: {keep: {robot: /file/filter}}
            """
        let (loaded, path) = try planManifest(manifest, in: site)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["plan.no-match"])
        XCTAssertEqual(loaded.diagnostics.first?.message, "the '!' patterns of job 'drafts' exclude every file")
        XCTAssertEqual(loaded.diagnostics.first?.location, SourceLocation(file: path, line: 3, column: 3))
    }
}
