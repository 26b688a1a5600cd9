import Basics
import Foundation
import TestSupport
import XCTest

/// `run --watch` sees every change (a copy, a rename, a move to another folder, a deletion, new
/// bytes; not chmod or `touch -a`), says what it was, and after each one runs as a plain `run`
/// does: the results and downloads end as a plain run of the same files in a fresh folder leaves them.
final class WatchEqualsPlainRunTests: XCTestCase {
    private let manifest = """
        version: 1
        endpoint: local
        results: build/results.json
        assemblies:
          thumbs:
            inputs: ["images/**/*.png"]
            batch: 2
            steps:
              small: {robot: /image/resize, use: ':original', width: 16, resize_strategy: fit, result: true}
            download: build/files

        """

    func testCopyRenameMoveDeleteAndNewBytesEndAsAPlainRunDoes() async throws {
        let directory = try TemporaryDirectory(prefix: "watch-plain")
        defer { directory.remove() }
        for (name, width) in [("a", 40), ("b", 50), ("c", 60), ("sub/d", 70)] {
            try directory.write("images/\(name).png", data: TestImages.png(width: width, height: 30))
        }
        try directory.write("pipeline.yml", manifest)
        let session = try WatchSession(in: directory.path)
        defer { _ = session.stop() }
        let watching = "pipeline: watching"
        var runs = 1
        /// Does `change`, waits for the run that follows it, and checks the line that said what changed.
        func expect(_ line: String, after change: () throws -> Void) async throws {
            try change()
            runs += 1
            let ran = await session.waitFor(watching, count: runs)
            XCTAssertTrue(ran, "no run followed '\(line)': \(session.output.value)")
            let said = session.lines(after: watching, count: runs - 1).first
            XCTAssertEqual(said, "pipeline: \(line)", session.output.value)
            // The run that followed took in every file there is now, and only those.
            XCTAssertEqual(try Self.sources(directory), try Self.files(under: directory.path + "/images").keys.map { "images/" + $0 }.sorted(), "after '\(line)'")
        }
        let started = await session.waitFor(watching, count: 1)
        XCTAssertTrue(started, session.output.value)
        let images = directory.path + "/images/"
        try await expect("added images/copy.png") { try FileManager.default.copyItem(atPath: images + "a.png", toPath: images + "copy.png") }
        try await expect("renamed images/b.png → images/e.png") { try FileManager.default.moveItem(atPath: images + "b.png", toPath: images + "e.png") }
        try await expect("renamed images/c.png → images/sub/c.png") { try FileManager.default.moveItem(atPath: images + "c.png", toPath: images + "sub/c.png") }
        try await expect("removed images/sub/d.png") { try FileManager.default.removeItem(atPath: images + "sub/d.png") }
        // A change of attributes alone is none: the next line names only the new file.
        try await expect("added images/f.png") {
            XCTAssertEqual(chmod(images + "a.png", 0o600), 0)
            let touched = try ProcessRunner.run("/usr/bin/touch", ["-a", images + "copy.png"])
            XCTAssertEqual(touched.status, 0, touched.stderr)
            try directory.write("images/f.png", data: TestImages.png(width: 80, height: 30))
        }
        try await expect("changed images/a.png") { try directory.write("images/a.png", data: TestImages.png(width: 45, height: 30)) }
        XCTAssertEqual(session.stop(), 130, session.output.value)

        // A plain run finds nothing left to do, and a fresh folder with the same files ends the same.
        let watchedResults = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json"))
        let again = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", "pipeline.yml", "--json"], in: directory.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stdout.contains("\"event\":\"created\""), again.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json")), watchedResults)
        let fresh = try TemporaryDirectory(prefix: "watch-fresh")
        defer { fresh.remove() }
        try FileManager.default.copyItem(atPath: directory.path + "/images", toPath: fresh.path + "/images")
        try fresh.write("pipeline.yml", manifest)
        let clean = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", "pipeline.yml"], in: fresh.path)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertEqual(try Self.results(directory), try Self.results(fresh))
        XCTAssertEqual(try Self.files(under: directory.path + "/build/files"), try Self.files(under: fresh.path + "/build/files"))
    }

    /// The results file without what names one Assembly of one run (its ID, its URLs).
    private static func results(_ directory: TemporaryDirectory) throws -> JSONValue {
        func strip(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let fields):
                .object(fields.filter { !["assembly_id", "assembly_url", "url"].contains($0.key) }.mapValues(strip))
            case .array(let items): .array(items.map(strip))
            default: value
            }
        }
        return strip(try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json"))))
    }

    /// The sources the results file lists, sorted.
    private static func sources(_ directory: TemporaryDirectory) throws -> [String] {
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/results.json")))
        return (results["assemblies"]?.arrayValue ?? []).flatMap { $0["files"]?.arrayValue ?? [] }.compactMap { $0["path"]?.stringValue }.sorted()
    }

    /// Every file under `folder` by its path there, with its bytes.
    private static func files(under folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: folder) ?? NSEnumerator() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[path] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
        }
        return files
    }
}
