import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// `pipeline run` end to end against the engine, embedded (`endpoint: local`) and as a server.
final class RunCommandTests: XCTestCase {
    /// A project with three images and a manifest; `endpoint` is `local` unless given.
    private func project(endpoint: String = "local", steps: String? = nil, batch: String = "2", extra: String = "") throws -> TemporaryDirectory {
        try TestProject.resizing(
            prefix: "run", endpoint: endpoint, images: ["a.png": (400, 200), "b.png": (300, 300), "c.png": (100, 400)],
            steps: steps ?? "      thumb:\n        robot: /image/resize\n        use: :original\n        width: 100\n        height: 100\n        resize_strategy: fit",
            name: "run-test", key: "${TRANSLOADIT_KEY:-test-key}", results: "out/results.json", batch: batch, download: "out/files", extra: extra)
    }

    private func results(_ directory: TemporaryDirectory) throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json")))
    }

    func testRunsOnTheEmbeddedEngineAndWritesResultsAndFiles() async throws {
        let directory = try project()
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("Run: 2 completed, 0 cached, 0 failed."), result.stdout)
        let json = try results(directory)
        let assemblies = try XCTUnwrap(json["assemblies"]?.arrayValue)
        XCTAssertEqual(assemblies.map { $0["status"] }, [.string("ASSEMBLY_COMPLETED"), .string("ASSEMBLY_COMPLETED")])
        let thumbs = assemblies.flatMap { $0["results"]?["thumb"]?.arrayValue ?? [] }
        XCTAssertEqual(thumbs.compactMap { $0["source"]?.stringValue }, ["images/a.png", "images/b.png", "images/c.png"])
        XCTAssertEqual(thumbs.map { $0["meta"] }, [
            .object(["width": .int(100), "height": .int(50)]), .object(["width": .int(100), "height": .int(100)]),
            .object(["width": .int(25), "height": .int(100)]),
        ])
        for thumb in thumbs {
            let url = try XCTUnwrap(thumb["url"]?.stringValue)
            XCTAssertTrue(url.hasPrefix("../.pipeline/engine/results/"), "result URLs outlive the embedded engine, relative to the results: \(url)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(ResultURLs.path(url, resultsFolder: directory.path + "/out"))), url)
        }
        for name in ["a.png", "b.png", "c.png"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/out/files/thumb/" + name), name)
        }
        // In process: no tus upload stored; each image handed over is its own inode, linked (no copy); the Assembly named by its record.
        let engine = directory.path + "/.pipeline/engine"
        XCTAssertEqual(try FileSystem.names(in: engine + "/uploads"), [])
        var source = stat(), linked = 0
        XCTAssertEqual(stat(directory.path + "/images/a.png", &source), 0)
        XCTAssertEqual(source.st_nlink, 2, "the source and its link in the Assembly")
        for folder in try FileSystem.names(in: engine + "/assemblies") where !folder.hasSuffix(".json") {
            for name in try FileSystem.names(in: engine + "/assemblies/" + folder + "/uploads") {
                var info = stat()
                if stat(engine + "/assemblies/" + folder + "/uploads/" + name, &info) == 0, info.st_ino == source.st_ino { linked += 1 }
            }
        }
        XCTAssertEqual(linked, 1, "a.png is linked into its Assembly, not copied")
        for assembly in assemblies {
            let record = try XCTUnwrap(ResultURLs.path(try XCTUnwrap(assembly["assembly_url"]?.stringValue), resultsFolder: directory.path + "/out"))
            XCTAssertTrue(record.hasPrefix(engine + "/assemblies/") && FileManager.default.fileExists(atPath: record), record)
        }
        let schema = try ProcessRunner.run(try PythonPeers.require("check-jsonschema"), [
            "--schemafile", PackageRoot.path + "/schemas/results.schema.json", directory.path + "/out/results.json",
        ])
        XCTAssertEqual(schema.status, 0, schema.stdout + schema.stderr)
    }

    func testADownloadFollowsAResultOfTheSameSizeWhoseBytesChanged() async throws {
        let directory = try TemporaryDirectory(prefix: "run-same-size")
        defer { directory.remove() }
        try directory.write("files/a.txt", "hello world 1\n")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              hashes:
                inputs: ["files/*.txt"]
                steps:
                  hash: {robot: /file/hash, use: ":original"}
                download: out
            """)
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/out/hash/a.txt", encoding: .utf8), "hello world 1\n")
        // The step hands the file on as it is: its result has the new bytes at the old size.
        try directory.write("files/a.txt", "hello world 2\n")
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/out/hash/a.txt", encoding: .utf8), "hello world 2\n")
        let results = try String(contentsOfFile: directory.path + "/results.json", encoding: .utf8)
        XCTAssertTrue(results.contains("md5hash"), "every result has the MD5 its download is checked by")
    }

    func testSecondRunIsIncrementalAndDeterministic() async throws {
        let directory = try project()
        defer { directory.remove() }
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json"))
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertFalse(second.stdout.contains("\"event\":\"created\""), "no Assembly is created when nothing changed")
        XCTAssertTrue(second.stdout.contains("\"cached\":2"), second.stdout)
        let after = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json"))
        XCTAssertEqual(before, after, "the same outcome gives the same bytes")
        // A run with everything cached shows no progress ("0 B of 0 B"), only what it found.
        let cached = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertFalse(cached.stderr.contains("Assemblies done") || cached.stderr.contains("0 B of 0 B"), cached.stderr)
        XCTAssertTrue(cached.stderr.contains("(2 cached)"), cached.stderr)

        try directory.write("images/b.png", data: TestImages.png(width: 310, height: 300))
        let third = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--json"])
        XCTAssertEqual(third.stdout.components(separatedBy: "\"event\":\"created\"").count - 1, 1, "only the changed batch runs again")
        let forced = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--json", "--force"])
        XCTAssertEqual(forced.stdout.components(separatedBy: "\"event\":\"created\"").count - 1, 2)
    }

    func testFailingRobotIsReportedWithItsCode() async throws {
        let directory = try project(steps: """
                  strict:
                    robot: /file/filter
                    use: :original
                    accepts: [["${file.size}", "<", 10]]
                    error_on_decline: true
            """, batch: "all")
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("FAILED FILE_FILTER_DECLINED_FILE"), result.stderr)
        XCTAssertTrue(result.stdout.contains("0 completed, 0 cached, 1 failed"), result.stdout)
        let entry = try XCTUnwrap(results(directory)["assemblies"]?.arrayValue?.first)
        XCTAssertEqual(entry["status"], .string("FILE_FILTER_DECLINED_FILE"))
        XCTAssertNotNil(entry["message"]?.stringValue)
    }

    func testSignedRunAgainstAServerAndAWrongSecret() async throws {
        let server = try EngineTestServer(credentials: ("test-key", "right-secret"))
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)")
        defer { directory.remove() }
        let wrong = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "wrong-secret"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("INVALID_SIGNATURE"), wrong.stderr)
        let right = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "right-secret"])
        XCTAssertEqual(right.status, 0, right.stderr)
        for artifact in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            let path = directory.path + "/" + artifact
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            XCTAssertNil(data.range(of: Data("right-secret".utf8)), "the secret is in \(artifact)")
        }
        XCTAssertFalse((right.stdout + right.stderr).contains("right-secret"))
    }

    func testRunWithoutAKeyForARemoteEndpointExplainsWhatToSet() async throws {
        let directory = try project(endpoint: "http://127.0.0.1:9")
        defer { directory.remove() }
        try directory.write("pipeline.yml", try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
            .replacingOccurrences(of: "${TRANSLOADIT_KEY:-test-key}", with: "${TRANSLOADIT_KEY}"))
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: [:])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("environment variable 'TRANSLOADIT_KEY' is not set"), result.stderr)
    }

    func testReviewedPlanRunsOnlyWhileItsFilesAreUnchanged() async throws {
        let directory = try project()
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml", plan = directory.path + "/plan.json"
        let planned = await CLIHarness.run(["plan", manifest, "--out", plan])
        XCTAssertEqual(planned.status, 0, planned.stderr)
        try directory.write("images/b.png", data: TestImages.png(width: 301, height: 300))
        let refused = await CLIHarness.run(["run", manifest, "--plan", plan])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("the files changed since"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("images/b.png: size"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/out/results.json"), "nothing ran")

        try directory.write("images/b.png", data: TestImages.png(width: 300, height: 300))
        let accepted = await CLIHarness.run(["run", manifest, "--plan", plan])
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
    }

    func testExportStepsRunLocallyAsCopiesAndPlanSaysSo() async throws {
        let directory = try project(steps: """
                  thumb: {robot: /image/resize, use: ":original", width: 50}
                  stored: {robot: /s3/store, use: thumb, credentials: site-bucket, path: "thumbs/${file.name}"}
            """)
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let plan = await CLIHarness.run(["plan", manifest])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stderr.contains("warning: step 'stored' uses /s3/store; the local engine copies its files into its data folder's exports/ instead"), plan.stderr)
        let run = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json")))
        let urls = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["stored"]?.arrayValue ?? [] }.compactMap { $0["url"]?.stringValue }
        XCTAssertEqual(urls.count, 3)
        for url in urls {
            let path = try XCTUnwrap(ResultURLs.path(url, resultsFolder: directory.path + "/out"))
            XCTAssertTrue(path.hasPrefix(directory.path + "/.pipeline/engine/exports/site-bucket/thumbs/"), path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        }
    }

    func testAFileNamedWithANewlineRunsUnderAPrintableName() async throws {
        let directory = try project()
        defer { directory.remove() }
        try directory.write("images/new\nline.png", data: TestImages.png(width: 50, height: 50))
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/out/results.json")))
        let names = (results["assemblies"]?.arrayValue ?? []).flatMap { $0["results"]?["thumb"]?.arrayValue ?? [] }.compactMap { $0["name"]?.stringValue }
        XCTAssertTrue(names.contains("new_line.png"), "\(names)")
    }

    func testShardAutoReadsTheCIsOwnVariables() async throws {
        let directory = try project(batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let cases: [([String: String], String, String)] = [
            (["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"], "auto", "shard 2/3 from GitLab's CI_NODE_INDEX and CI_NODE_TOTAL"),
            (["CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3"], "auto", "shard 1/3 from CircleCI's CIRCLE_NODE_INDEX and CIRCLE_NODE_TOTAL"),
            (["BUILDKITE_PARALLEL_JOB": "2", "BUILDKITE_PARALLEL_JOB_COUNT": "3"], "auto", "shard 3/3 from Buildkite's"),
            (["JOB_COMPLETION_INDEX": "1"], "auto/3", "shard 2/3 from a Kubernetes indexed Job's JOB_COMPLETION_INDEX"),
        ]
        for (environment, option, said) in cases {
            let auto = await CLIHarness.run(["plan", manifest, "--shard", option, "--format", "json"], environment: environment)
            XCTAssertEqual(auto.status, 0, auto.stderr)
            XCTAssertTrue(auto.stderr.contains(said), "\(environment): \(auto.stderr)")
            let index = said.dropFirst("shard ".count).prefix { $0 != " " }
            let explicit = await CLIHarness.run(["plan", manifest, "--shard", String(index), "--format", "json"])
            XCTAssertEqual(auto.stdout, explicit.stdout, "\(environment): the same share as --shard \(index)")
        }
        // A hostile or broken CI's numbers are refused, never overflowed.
        for environment in [["CIRCLE_NODE_INDEX": "9223372036854775807", "CIRCLE_NODE_TOTAL": "5"],
                            ["BUILDKITE_PARALLEL_JOB": "9223372036854775807", "BUILDKITE_PARALLEL_JOB_COUNT": "9223372036854775807"]] {
            let huge = await CLIHarness.run(["plan", manifest, "--shard", "auto"], environment: environment)
            XCTAssertEqual(huge.status, 64, "\(environment): \(huge.stderr)")
        }
        let none = await CLIHarness.run(["plan", manifest, "--shard", "auto"])
        XCTAssertEqual(none.status, 64)
        XCTAssertTrue(none.stderr.contains("found no CI shard variables"), none.stderr)
    }

    func testShardsMergeIntoTheUnshardedResults() async throws {
        let directory = try project(batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let whole = await CLIHarness.run(["run", manifest, "--results", directory.path + "/all.json"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        for shard in ["1/2", "2/2"] {
            let part = await CLIHarness.run(["run", manifest, "--shard", shard, "--results", directory.path + "/shard-\(shard.prefix(1)).json"])
            XCTAssertEqual(part.status, 0, part.stderr)
        }
        let merged = await CLIHarness.run(["results", "merge", directory.path + "/shard-2.json", directory.path + "/shard-1.json"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let expected = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/all.json")))
        XCTAssertEqual(withoutIDs(try JSONValue.parse(Data(merged.stdout.utf8))), withoutIDs(expected))
        XCTAssertEqual(expected["assemblies"]?.arrayValue?.count, 3)
        let written = await CLIHarness.run(["results", "merge", directory.path + "/shard-1.json", directory.path + "/shard-2.json", "--out", directory.path + "/merged.json"])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/merged.json", encoding: .utf8), merged.stdout)

        let incomplete = await CLIHarness.run(["results", "merge", directory.path + "/shard-1.json"])
        XCTAssertEqual(incomplete.status, 1)
        XCTAssertTrue(incomplete.stderr.contains("not all the shards"), incomplete.stderr)
    }

    func testALargeRunListsOnlyItsFailuresAndAProgressLine() async throws {
        let directory = try TemporaryDirectory(prefix: "large-run")
        defer { directory.remove() }
        for index in 0..<210 { try directory.write(String(format: "files/%03d.txt", index), "file \(index)") }
        try directory.write("pipeline.yml", "version: 1\nendpoint: local\nassemblies:\n  each:\n    inputs: [files/*.txt]\n    batch: 1\n    steps: {h: {robot: /file/hash, use: ':original'}}\n")
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--concurrency", "16"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("created each"), "210 Assemblies are not listed one by one: \(run.stderr.prefix(500))")
        XCTAssertFalse(run.stderr.contains("] each "), run.stderr.prefix(500) + "")
        XCTAssertTrue(run.stderr.contains("Assemblies done ("), run.stderr)
        XCTAssertTrue(run.stdout.contains("Run: 210 completed"), run.stdout)
    }

    func testPlanShardIsItsShareOfTheWholePlanAndAReviewedPlanShards() async throws {
        let directory = try project(batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let whole = await CLIHarness.run(["plan", manifest, "--json"])
        let assemblies = try JSONValue.parse(Data(whole.stdout.utf8))["assemblies"]?.arrayValue ?? []
        var shared: [JSONValue] = []
        for shard in ["1/2", "2/2"] {
            let part = await CLIHarness.run(["plan", manifest, "--json", "--shard", shard])
            XCTAssertEqual(part.status, 0, part.stderr)
            shared += try JSONValue.parse(Data(part.stdout.utf8))["assemblies"]?.arrayValue ?? []
        }
        XCTAssertEqual(shared, assemblies)
        XCTAssertEqual(assemblies.count, 3)

        // A reviewed plan of the whole is run shard by shard, each checking only its own files.
        let reviewed = directory.path + "/plan.json"
        _ = await CLIHarness.run(["plan", manifest, "--out", reviewed])
        for shard in ["1/2", "2/2"] {
            let results = directory.path + "/results-\(shard.replacingOccurrences(of: "/", with: "-")).json"
            let part = await CLIHarness.run(["run", manifest, "--plan", reviewed, "--shard", shard, "--json", "--results", results])
            XCTAssertEqual(part.status, 0, part.stderr)
        }
        for wrong in ["0/2", "3/2", "1/0", "a/b", "1/2/3", "/2"] {
            let refused = await CLIHarness.run(["plan", manifest, "--shard", wrong])
            XCTAssertEqual(refused.status, 64, wrong)
            XCTAssertTrue(refused.stderr.contains("--shard needs I/N"), refused.stderr)
        }
    }

    func testQuietSaysOnlyFailuresAndTheSummaryVerboseSaysEveryAssembly() async throws {
        let directory = try project(batch: "1")
        defer { directory.remove() }
        let quiet = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "-q"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("created") || quiet.stderr.contains("handed over") || quiet.stderr.contains("[1/3]"), quiet.stderr)
        XCTAssertTrue(quiet.stdout.hasPrefix("Run: 3 completed, 0 cached, 0 failed. Results: "), quiet.stdout)
        // The embedded engine reads the files where they are: they are handed over, not uploaded.
        XCTAssertTrue(quiet.stdout.contains(" s, ") && quiet.stdout.contains(" handed over)"), "the summary gives elapsed time and bytes: \(quiet.stdout)")
        XCTAssertFalse(quiet.stdout.contains(" 0 B handed over"), "bytes sent in the creating requests count: \(quiet.stdout)")
        XCTAssertEqual(quiet.stderr, "", "-q: no header, no progress")
        let verbose = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--verbose", "--force"])
        XCTAssertEqual(verbose.status, 0, verbose.stderr)
        XCTAssertEqual(verbose.stderr.components(separatedBy: "created thumbs").count - 1, 3, verbose.stderr)
        // The first progress line already knows how much there is to send.
        let progress = verbose.stderr.split(separator: "\n").filter { $0.contains(" handed over") }
        XCTAssertFalse(progress.isEmpty, verbose.stderr)
        XCTAssertFalse(progress.contains { $0.contains("of 0 B handed over") }, verbose.stderr)
        let help = await CLIHarness.run(["run", "--help"])
        XCTAssertTrue(help.stdout.contains("-q, --quiet"), help.stdout)
    }

    func testStatusShowsTheLastRunNotOlderVersionsOfTheManifest() async throws {
        let directory = try project(batch: "2")
        defer { directory.remove() }
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let manifest = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        try manifest.replacingOccurrences(of: "width: 100", with: "width: 90").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let status = await CLIHarness.run(["status", directory.path + "/pipeline.yml", "--json"])
        let rows = try JSONValue.parse(Data(status.stdout.utf8))["assemblies"]?.arrayValue ?? []
        XCTAssertEqual(rows.count, 2, "this run's 2 Assemblies, not the 4 of both versions: \(status.stdout)")
    }

    func testStatusOfALocalRunReportsWhatItStored() async throws {
        let directory = try project()
        defer { directory.remove() }
        try directory.write("images/broken.png", data: TestImages.corruptPNG(width: 8, height: 8))
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 1, run.stderr)
        // The embedded engine is gone with the run: the stored state and error are reported, not NETWORK.
        let status = await CLIHarness.run(["status", directory.path + "/pipeline.yml"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let lines = status.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "JOB     PLAN          ASSEMBLY                          STATUS", status.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("thumbs  ") && $0.hasSuffix("IMAGE_RESIZE_ERROR") }, status.stdout)
        XCTAssertFalse(status.stdout.contains("NETWORK") || status.stdout.contains("CANNOT_CONNECT"), status.stdout)
        // Counted, by job.
        XCTAssertTrue(status.stdout.contains(" (thumbs "), status.stdout)
        XCTAssertTrue(status.stdout.contains(" failed, 0 in flight"), status.stdout)
        // Without the results file (removed, or a run killed before it wrote them) the engine's
        // records still tell, and the plan the run kept names the jobs.
        try FileManager.default.removeItem(atPath: directory.path + "/out/results.json")
        let bare = await CLIHarness.run(["status", directory.path + "/pipeline.yml"])
        let rows = bare.stdout.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("Results:") && !$0.contains(" completed, ") }
        XCTAssertFalse(rows.isEmpty, bare.stdout)
        XCTAssertTrue(rows.allSatisfy { $0.hasPrefix("thumbs  ") && !$0.hasSuffix("STARTED") }, bare.stdout)
        XCTAssertTrue(rows.contains { $0.hasSuffix("IMAGE_RESIZE_ERROR") }, bare.stdout)
        XCTAssertTrue(bare.stdout.contains("out/results.json (not written)"), bare.stdout)
        // A record that is no regular file (planted) is not waited on, and says nothing.
        let records = directory.path + "/.pipeline/engine/assemblies"
        let record = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: records).first { $0.hasSuffix(".json") })
        try FileManager.default.removeItem(atPath: records + "/" + record)
        XCTAssertEqual(mkfifo(records + "/" + record, 0o600), 0)
        let planted = await CLIHarness.run(["status", directory.path + "/pipeline.yml"])
        XCTAssertEqual(planted.status, 0, planted.stderr)
        XCTAssertTrue(planted.stdout.contains(String(record.dropLast(5)) + "  STARTED"), planted.stdout)
    }

    func testStatusSaysWhichEmbeddedEngineAssembliesStoppedWithAKilledRun() async throws {
        let directory = try project()
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let run = await CLIHarness.run(["run", manifest])
        XCTAssertEqual(run.status, 0, run.stderr)
        // As a run killed mid-way leaves it: one record stored in flight, and no results file.
        try FileManager.default.removeItem(atPath: directory.path + "/out/results.json")
        let records = directory.path + "/.pipeline/engine/assemblies"
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: records).first { $0.hasSuffix(".json") })
        var record = try XCTUnwrap(JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: records + "/" + name))).objectValue)
        record["ok"] = .string("ASSEMBLY_EXECUTING")
        try Data(JSONValue.object(record).serialized().utf8).write(to: URL(fileURLWithPath: records + "/" + name))
        let id = String(name.dropLast(5))
        let stopped = await CLIHarness.run(["status", manifest])
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertTrue(stopped.stdout.contains(id + "  ASSEMBLY_EXECUTING (interrupted)\n"), stopped.stdout)
        XCTAssertTrue(stopped.stdout.contains("1 Assembly stopped with its run, unfinished; 'pipeline run \(manifest)' resumes it."), stopped.stdout)
        XCTAssertEqual(stopped.stdout.components(separatedBy: "(interrupted)").count, 2, "only the one in flight: \(stopped.stdout)")
        let json = try JSONValue.parse(Data(await CLIHarness.run(["status", manifest, "--json"]).stdout.utf8))
        let rows = json["assemblies"]?.arrayValue ?? []
        XCTAssertEqual(rows.filter { $0["interrupted"] == .bool(true) }.map { $0["assembly_id"] }, [.string(id)])
        // While a run of the manifest holds its lock, the engine of that run is working on it.
        let lock = open(directory.path + "/.pipeline/manifests/pipeline/run-state.json.lock", O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(lock, 0)
        defer { close(lock) }
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        let running = await CLIHarness.run(["status", manifest])
        XCTAssertTrue(running.stdout.contains(id + "  ASSEMBLY_EXECUTING\n"), running.stdout)
        XCTAssertFalse(running.stdout.contains("interrupted") || running.stdout.contains("resumes"), running.stdout)
    }

    func testStatusAndCancelSeeEveryShard() async throws {
        let directory = try project(batch: "1")
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        for shard in ["1/2", "2/2"] {
            let results = directory.path + "/results-\(shard.replacingOccurrences(of: "/", with: "-")).json"
            let part = await CLIHarness.run(["run", manifest, "--shard", shard, "--results", results])
            XCTAssertEqual(part.status, 0, part.stderr)
        }
        let status = await CLIHarness.run(["status", manifest, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let rows = try JSONValue.parse(Data(status.stdout.utf8))["assemblies"]?.arrayValue ?? []
        XCTAssertEqual(rows.count, 3, "both shards' Assemblies: \(status.stdout)")
        let cancel = await CLIHarness.run(["cancel", manifest])
        XCTAssertEqual(cancel.status, 0, cancel.stderr)
    }

    /// Results with the per-run Assembly ids and URLs removed.
    private func withoutIDs(_ results: JSONValue) -> JSONValue {
        guard var object = results.objectValue else { return results }
        object["assemblies"] = .array((object["assemblies"]?.arrayValue ?? []).map { entry in
            var copy = entry.objectValue ?? [:]
            copy["assembly_id"] = nil
            copy["assembly_url"] = nil
            copy["results"] = .object((copy["results"]?.objectValue ?? [:]).mapValues { files in
                .array((files.arrayValue ?? []).map { file in
                    var stripped = file.objectValue ?? [:]
                    stripped["url"] = nil
                    return .object(stripped)
                })
            })
            return .object(copy)
        })
        return .object(object)
    }

    func testRateLimitedCreatesWaitRetryInAndSucceed() async throws {
        let server = try EngineTestServer(rateLimit: (count: 2, window: 2))
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)", batch: "1")
        defer { directory.remove() }
        let start = ContinuousClock.now
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "s"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("Run: 3 completed"), result.stdout)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .seconds(1), "the third create waited for the window")
    }
}
