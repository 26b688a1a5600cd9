import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// `download:` copies only what a download may be: http(s) results, or the embedded engine's own
/// files, written below the download folder without following links.
final class DownloadSafetyTests: XCTestCase {
    private let secretText = "runner-secret-\(UInt64.random(in: 0...UInt64.max))\n"

    private func project(endpoint: String) throws -> TemporaryDirectory {
        try TestProject.resizing(
            prefix: "download-safety", endpoint: endpoint, images: ["a.png": (64, 32)],
            steps: "      thumb: {robot: /image/resize, use: \":original\", width: 16, height: 16}", download: "build/out")
    }

    /// A folder outside the project holding `secret.txt`, the secret.
    private func secretFolder() throws -> TemporaryDirectory {
        let outside = try TemporaryDirectory(prefix: "download-secret")
        try outside.write("secret.txt", data: Data(secretText.utf8))
        return outside
    }

    /// A project on the embedded engine that ran once.
    private func ranProject() async throws -> TemporaryDirectory {
        let directory = try project(endpoint: "local")
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        return directory
    }

    /// Every file below `folder` whose content is the secret.
    private func copiesOfTheSecret(below folder: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.filter { (try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8)) == secretText }
    }

    func testAServerNamingALocalFileGetsNothingCopied() async throws {
        let outside = try secretFolder()
        defer { outside.remove() }
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, _) = try server.faulty(["GET:*:results=file://\(outside.path)/secret.txt"])
        defer { proxy.stop() }
        let directory = try project(endpoint: proxy.url(""))
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unchecked"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("names a local file"), result.stderr)
        XCTAssertEqual(copiesOfTheSecret(below: directory.path), [], "a remote endpoint's file:// URL was copied")
    }

    func testResultsReadFromDiskCannotNameFilesOutsideTheEngine() async throws {
        let outside = try secretFolder()
        defer { outside.remove() }
        let directory = try await ranProject()
        defer { directory.remove() }
        // A results file restored from a cache, forged to name the secret with its exact size: by
        // an absolute file:// URL, then by a relative one climbing out of the project.
        let resultsPath = directory.path + "/results.json"
        let original = try String(contentsOfFile: resultsPath, encoding: .utf8)
        let url = try XCTUnwrap(original.firstMatch(of: /"url":\s*"(\.\.?\/[^"]+|[^":]+\/[^"]+)"/)?.1)
        let size = try XCTUnwrap(original.firstMatch(of: /"size":\s*([0-9]+),\s*"source"/)?.1)
        let climbing = String(repeating: "../", count: directory.path.split(separator: "/").count) + outside.path.dropFirst() + "/secret.txt"
        for forged in ["file://\(outside.path)/secret.txt", climbing] {
            var text = original.replacingOccurrences(of: String(url), with: forged)
            text = text.replacingOccurrences(of: "\"size\": \(size), \"source\"", with: "\"size\": \(secretText.utf8.count), \"source\"")
            try text.write(toFile: resultsPath, atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(atPath: directory.path + "/build")
            // Such a result is not the engine's: never read, it is made again.
            let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
            XCTAssertEqual(second.status, 0, second.stderr)
            XCTAssertTrue(second.stdout.hasPrefix("Run: 1 completed"), second.stdout)
            XCTAssertEqual(copiesOfTheSecret(below: directory.path), [])
            XCTAssertFalse(try String(contentsOfFile: resultsPath, encoding: .utf8).contains("secret.txt"), forged)
        }
    }

    /// A results file of the embedded engine forged to name a remote URL: a local run never asks
    /// it (the engine's results are its own files), and makes the result again.
    func testAForgedRemoteResultOfTheEmbeddedEngineIsNeverFetched() async throws {
        let outside = try secretFolder()
        defer { outside.remove() }
        let log = outside.path + "/requests.log"
        let server = try ServerProcess("/usr/bin/env", ["python3", "-c", """
            import functools, http.server, signal
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory="\(outside.path)")
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            print("PORT", server.server_port, flush=True)
            server.serve_forever()
            """], errors: log)
        defer { server.stop() }
        let directory = try await ranProject()
        defer { directory.remove() }
        let resultsPath = directory.path + "/results.json"
        let original = try String(contentsOfFile: resultsPath, encoding: .utf8)
        let url = try XCTUnwrap(original.firstMatch(of: /"url":\s*"([^"]+)"/)?.1)
        try original.replacingOccurrences(of: String(url), with: server.url("/secret.txt")).write(toFile: resultsPath, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: directory.path + "/build")
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(plan.stdout.contains("work: thumb: 1 file\n"), plan.stdout + plan.stderr)
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.hasPrefix("Run: 1 completed"), second.stdout)
        XCTAssertEqual(copiesOfTheSecret(below: directory.path), [])
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "", "the forged URL was asked")
    }

    func testALinkInsideTheDownloadFolderReceivesNothing() async throws {
        let elsewhere = try TemporaryDirectory(prefix: "download-elsewhere")
        defer { elsewhere.remove() }
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path + "/build/out", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/build/out/thumb", withDestinationPath: elsewhere.path)
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("is a symbolic link"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [], "a download went through the link")
    }

    func testALinkedDownloadFolderItselfIsRefused() async throws {
        let elsewhere = try TemporaryDirectory(prefix: "download-elsewhere")
        defer { elsewhere.remove() }
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path + "/build", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/build/out", withDestinationPath: elsewhere.path)
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
    }

    func testRemoteResultsAreStreamedIntoPlace() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)")
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unchecked"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/build/out/thumb/a.png"))
        XCTAssertEqual(Array(image.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/build/out/thumb").filter { $0.hasSuffix(".part") }
        XCTAssertEqual(leftovers, [])
    }

    func testResultsOfRemovedSourcesLeaveTheDownloadFolderAndNothingElseDoes() async throws {
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        try directory.write("images/b.png", data: TestImages.png(width: 64, height: 32))
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let thumbs = directory.path + "/build/out/thumb"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: thumbs).sorted(), ["a.png", "b.png"])
        try directory.write("build/out/thumb/mine.txt", "a file of the user's own")
        try FileManager.default.removeItem(atPath: directory.path + "/images/b.png")
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: thumbs).sorted(), ["a.png", "mine.txt"], "only what pipeline wrote and no result names is gone")
    }

    /// `downloads.json` restored from a cache or committed by a pull request names folders outside
    /// the project (absolute, climbing) and inside it (some no job downloads into), and files of
    /// the download folder that no download wrote: a run removes nothing there.
    func testAForgedDownloadLedgerRemovesNothingOutsideTheDownloadFolders() async throws {
        let outside = try TemporaryDirectory(prefix: "ledger-victim")
        defer { outside.remove() }
        try outside.write("step/keep.txt", "the user's")
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        try directory.write("src/main.txt", "the project's own")
        try directory.write("build/out/.git/config", "the user's, in the download folder")
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let ledger = try XCTUnwrap(FileManager.default.enumerator(atPath: directory.path + "/.pipeline")?.compactMap { $0 as? String }.first { $0.hasSuffix("downloads.json") })
        let written = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/.pipeline/" + ledger)))
        XCTAssertEqual(written.objectValue.map { Array($0.keys) }, ["build/out"], "kept relative to the manifest's folder")
        let climbing = RealPath.relative(outside.path, from: directory.path)
        let forged: JSONValue = .object([
            outside.path: .array([.string("step/keep.txt")]), climbing: .array([.string("step/keep.txt")]),
            ".": .array([.string("src/main.txt")]), "build/out": .array([.string("thumb/a.png"), .string("../../src/main.txt"), .string(".git/config")]),
            // Folders no job downloads into: what a download wrote there goes, nothing else.
            "src": .array([.string("main.txt")]), "build/out/.git": .array([.string("config")]), ".pipeline": .array([.string("manifests/pipeline/downloads.json")]),
        ])
        try directory.write(".pipeline/" + ledger, forged.serialized(pretty: true))
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside.path + "/step/keep.txt"), "nothing outside the project is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/src/main.txt"), "nothing outside the download folder is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/build/out/thumb/a.png"), "what this run wrote stays")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/build/out/.git/config"), "only files downloads wrote are removed")
    }

    func testTheCommandLineCannotDownloadIntoGitOrTheStateFolder() async throws {
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        for folder in [".git", "x/.pipeline/engine"] {
            let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--download", directory.path + "/" + folder])
            XCTAssertEqual(run.status, 64, run.stderr)
            XCTAssertTrue(run.stderr.contains("--download must not be in .git/ or .pipeline/"), run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/.git"))
    }

    func testTheResultsFileIsNeverWrittenThroughALink() async throws {
        let elsewhere = try TemporaryDirectory(prefix: "results-elsewhere")
        defer { elsewhere.remove() }
        try elsewhere.write(".bashrc", "ORIGINAL\n")
        let directory = try project(endpoint: "local")
        defer { directory.remove() }
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/lnk", withDestinationPath: elsewhere.path)
        let text = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        // A file there that is no results file is never replaced; a new one is never made through the link.
        for (target, refusal) in [(".bashrc", "is not a results file"), ("results.json", "is a symbolic link")] {
            try text.replacingOccurrences(of: "results: results.json", with: "results: lnk/\(target)").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
            let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(refusal), result.stderr)
        }
        XCTAssertEqual(try String(contentsOfFile: elsewhere.path + "/.bashrc", encoding: .utf8), "ORIGINAL\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [".bashrc"])
        // `report` writes through the same link-free writer: not into the linked folder either.
        try text.write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let ran = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let report = await CLIHarness.run(["report", directory.path + "/pipeline.yml", "--out", directory.path + "/lnk/report.html"])
        XCTAssertEqual(report.status, 1, report.stderr)
        XCTAssertTrue(report.stderr.contains("is a symbolic link"), report.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [".bashrc"])
        // Nor into git's own folder.
        try text.replacingOccurrences(of: "results: results.json", with: "results: .git/config").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let git = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(git.status, 1)
        XCTAssertTrue(git.stderr.contains("manifest.outside-project"), git.stderr)
        // Nor into pipeline's own state, which the next run would read as state.
        try text.replacingOccurrences(of: "download: build/out", with: "download: .pipeline/engine").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let state = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(state.status, 1)
        XCTAssertTrue(state.stderr.contains("'download' must be a path inside the manifest's folder and outside .git/ and .pipeline/, not '.pipeline/engine'"), state.stderr)
    }
}
