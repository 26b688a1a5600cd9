import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// What `pipeline run` must not get wrong under pressure: --force, a second endpoint, a file
/// that changes mid-run, a proxy that limits bodies, a reader that goes away, a flood of errors.
final class RunHardeningTests: XCTestCase {
    /// The engines here check no signature, but a remote endpoint needs a signer to run at all.
    private let secret = ["TRANSLOADIT_SECRET": "unchecked"]

    private func project(endpoint: String, authLines: (String) -> [String] = { _ in [] }) throws -> TemporaryDirectory {
        try TestProject.hashing(
            prefix: "run-hardening", endpoint: endpoint, files: ["a.bin": Data(repeating: 1, count: 700_000), "b.bin": Data(repeating: 2, count: 300_000)],
            batch: "all", algorithm: "sha256", authLines: authLines)
    }

    private func assemblies(_ directory: TemporaryDirectory) throws -> [JSONValue] {
        try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))["assemblies"]?.arrayValue ?? []
    }

    func testForceCreatesNewAssembliesOnARemoteEndpoint() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)")
        defer { directory.remove() }
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = try assemblies(directory).compactMap { $0["assembly_id"]?.stringValue }
        let forced = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--force", "-v"], environment: secret)
        XCTAssertEqual(forced.status, 0, forced.stderr)
        let after = try assemblies(directory).compactMap { $0["assembly_id"]?.stringValue }
        XCTAssertEqual(after.count, 1)
        XCTAssertNotEqual(before, after, "--force made a new Assembly")
        XCTAssertTrue(forced.stderr.contains("created hashes"), forced.stderr)
    }

    func testRunStateOfOneEndpointIsNeverResumedOnAnother() async throws {
        let first = try EngineTestServer()
        defer { first.stop() }
        let second = try EngineTestServer()
        defer { second.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(first.port)")
        defer { directory.remove() }
        let onFirst = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(onFirst.status, 0, onFirst.stderr)
        // The first engine's completed results are not the second's, and its run state names the first engine's Assembly.
        let onSecond = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--endpoint", "http://127.0.0.1:\(second.port)"], environment: secret)
        XCTAssertEqual(onSecond.status, 0, onSecond.stderr)
        XCTAssertTrue(onSecond.stderr.contains("(0 cached)"), onSecond.stderr)
        let url = try XCTUnwrap(try assemblies(directory).first?["assembly_url"]?.stringValue)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:\(second.port)/"), url)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        XCTAssertEqual(results["endpoint"], .string("http://127.0.0.1:\(second.port)"))
    }

    func testPlanAndRunAgreeOnWhatIsCachedAfterAnEndpointChange() async throws {
        let first = try EngineTestServer()
        defer { first.stop() }
        let second = try EngineTestServer()
        defer { second.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(first.port)")
        defer { directory.remove() }
        let ran = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let same = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertTrue(same.stdout.contains("(cached)"), same.stdout)
        let manifest = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        try manifest.replacingOccurrences(of: ":\(first.port)", with: ":\(second.port)").write(toFile: directory.path + "/pipeline.yml", atomically: true, encoding: .utf8)
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertFalse(plan.stdout.contains("(cached)"), "another endpoint reuses nothing: \(plan.stdout)")
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertTrue(run.stderr.contains("(0 cached)"), run.stderr)
    }

    func testADownEndpointSaysWhatIsRetriedAndGivesUpSoon() async throws {
        let directory = try project(endpoint: "http://127.0.0.1:9")
        defer { directory.remove() }
        let started = ContinuousClock.now
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(30), "gave up after a few attempts, not at the 8 h timeout")
        XCTAssertTrue(result.stderr.contains("Couldn't connect to server; retrying in 1 s (attempt 2 of 4)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("(attempt 4 of 4)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("CANNOT_CONNECT"), result.stderr)
        XCTAssertTrue(result.stderr.contains("check the endpoint"), result.stderr)
        // Nothing moves while the creation is retried, and the log still gets its line every 5 s.
        XCTAssertTrue(result.stderr.contains("0 of 1 Assemblies done"), result.stderr)
    }

    func testRetriesEndAtTheRunsTimeout() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, endpoint) = try server.faulty(["POST:*:status=500"])
        defer { proxy.stop() }
        let directory = try project(endpoint: String(endpoint.dropLast("/resumable/files/".count)))
        defer { directory.remove() }
        let started = ContinuousClock.now
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--timeout", "3s"], environment: secret)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("RUN_TIMEOUT"), result.stderr)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20), "retries stopped at the timeout, not after eight backoffs")
    }

    func testAnEarlierAssemblyWhoseStatusCannotBeHadIsNeverDuplicated() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // Every status request fails: the first run times out with its Assembly still going.
        let (proxy, endpoint) = try server.faulty(["GET:*:status=503"])
        defer { proxy.stop() }
        let directory = try project(endpoint: String(endpoint.dropLast("/resumable/files/".count)))
        defer { directory.remove() }
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--timeout", "3s"], environment: secret)
        XCTAssertEqual(first.status, 1, first.stderr)
        XCTAssertEqual(fileNames(in: server.data.path + "/assemblies").filter { $0.hasSuffix(".json") }.count, 1)
        // Asked again and still unanswered, the Assembly may be running: no second one is made.
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--timeout", "3s"], environment: secret)
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("cannot tell whether Assembly"), second.stderr)
        XCTAssertTrue(second.stderr.contains("--force"), second.stderr)
        XCTAssertEqual(fileNames(in: server.data.path + "/assemblies").filter { $0.hasSuffix(".json") }.count, 1, "no duplicate Assembly")
    }

    func testATusEndpointIsAskedItsCapabilitiesOncePerRunAndSmallBodiesDoNotWaitToBeAsked() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)")
        defer { directory.remove() }
        for index in 0..<6 { try directory.write("files/more-\(index).bin", data: Data(repeating: UInt8(index), count: 5_000)) }
        let manifest = directory.path + "/pipeline.yml"
        try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(of: "batch: all", with: "batch: 1")
            .write(toFile: manifest, atomically: false, encoding: .utf8)
        let ran = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let requests = server.requests
        XCTAssertGreaterThanOrEqual(requests.filter { $0.hasPrefix("POST /assemblies") }.count, 4, "\(requests)")
        XCTAssertEqual(requests.filter { $0.hasPrefix("OPTIONS ") }.count, 1, "one OPTIONS for the run: \(requests)")
    }

    func testAFailedWriteToStandardOutputOrADeviceIsAnError() throws {
        let sign = try ProcessRunner.run("/bin/sh", ["-c", "echo '{\"steps\": {}}' | \"$0\" sign > /dev/full", ProcessRunner.pipelineExecutable],
                                         environment: ["TRANSLOADIT_KEY": "k", "TRANSLOADIT_SECRET": "s"])
        XCTAssertEqual(sign.status, 1)
        XCTAssertTrue(sign.stderr.contains("cannot write to standard output: No space left on device"), sign.stderr)
        XCTAssertFalse(sign.stderr.contains("sha384:"), "the signature is not printed anywhere else")

        let directory = try TemporaryDirectory(prefix: "device")
        defer { directory.remove() }
        try directory.write("files/a.bin", "a")
        try directory.write("pipeline.yml", "version: 1\nassemblies:\n  a: {inputs: [files/a.bin], steps: {h: {robot: /file/hash, use: \":original\"}}}\n")
        let plan = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["plan", directory.path + "/pipeline.yml", "--out", "/dev/full"])
        XCTAssertEqual(plan.status, 1)
        XCTAssertTrue(plan.stderr.contains("cannot write '/dev/full'"), plan.stderr)
        var info = stat()
        XCTAssertEqual(stat("/dev/full", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "the device is written to, never replaced by a file")
    }

    func testAFileChangedAfterPlanningIsNotUploadedAndTheAssemblyKeepsItsID() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // The signing program runs after planning and before the uploads: it edits a planned file.
        let directory = try project(endpoint: "http://127.0.0.1:\(server.port)", authLines: { path in
            ["signer:", #"  command: [sh, -c, "cat > /dev/null; printf x >> '\#(path)/files/a.bin'; printf sha384:%096d 0"]"#]
        })
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("'files/a.bin' changed since it was planned"), result.stderr)
        let entry = try XCTUnwrap(try assemblies(directory).first)
        XCTAssertEqual(entry["status"], .string("FILE_CHANGED"))
        let id = try XCTUnwrap(entry["assembly_id"]?.stringValue, "the Assembly exists, so its id is in the results")
        XCTAssertTrue(result.stderr.contains("(Assembly \(id))"), result.stderr)
        XCTAssertEqual(server.createdUploads(), 0, "nothing of the changed file was sent")
    }

    func testAProxyThatLimitsBodiesIsMetWithSmallerRequests() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let (proxy, endpoint) = try server.faulty(["PATCH:*:limit=300000", "POST:*:limit=300000"])
        defer { proxy.stop() }
        let base = String(endpoint.dropLast("/resumable/files/".count))
        let directory = try project(endpoint: base)
        defer { directory.remove() }
        let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--chunk-size", "256KiB"], environment: secret)
        XCTAssertEqual(result.status, 0, result.stderr)

        let tooSmall = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--chunk-size", "1KB"], environment: secret)
        XCTAssertEqual(tooSmall.status, 64)
        try directory.write("small.yml", """
            version: 1
            upload: {chunk_size: 1KB}
            assemblies:
              a: {inputs: ["files/*.bin"], steps: {h: {robot: /file/hash, use: ":original"}}}
            """)
        let invalid = await CLIHarness.run(["validate", directory.path + "/small.yml"])
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.stderr.contains("'upload.chunk_size' must be at least 256KiB"), invalid.stderr)
    }

    func testAClosedStandardOutputEndsQuietly() throws {
        let directory = try TemporaryDirectory(prefix: "closed-pipe")
        defer { directory.remove() }
        try directory.write("pipeline.yml", "version: 1\nassemblies: {" + Array(repeating: "a: 1", count: 20_000).joined(separator: ", ") + "}\n")
        let script = "\"$0\" validate \"$1\" --json | head -c 10 > /dev/null; echo \"${PIPESTATUS[0]}\""
        let result = try ProcessRunner.run("/bin/bash", ["-c", script, ProcessRunner.pipelineExecutable, directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1", "an invalid manifest, not a crash: \(result.stderr)")
        XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr)
    }

    func testAFloodOfDiagnosticsIsShortOnScreenAndCompleteInJSON() async throws {
        let directory = try TemporaryDirectory(prefix: "flood")
        defer { directory.remove() }
        try directory.write("pipeline.yml", "version: 1\nassemblies: {" + Array(repeating: "a: 1", count: 3_000).joined(separator: ", ") + "}\n")
        let text = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(text.status, 1)
        XCTAssertLessThan(text.stderr.utf8.count, 64 << 10, "50 diagnostics with short excerpts")
        XCTAssertTrue(text.stderr.contains("... and 2949 more not shown (--json lists every one)"), String(text.stderr.suffix(300)))
        XCTAssertTrue(text.stderr.contains(" | …"), "a long line is shown as a window")
        let json = await CLIHarness.run(["validate", directory.path + "/pipeline.yml", "--json"])
        XCTAssertEqual(try JSONValue.parse(Data(json.stdout.utf8))["diagnostics"]?.arrayValue?.count, 2_999)
    }

    func testTransloaditsOwnNamesAreNotMistakenForMistakes() async throws {
        let directory = try TemporaryDirectory(prefix: "names")
        defer { directory.remove() }
        try directory.write("files/a.txt", "a")
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              files:
                inputs: ["files/*.txt"]
                steps:
                  ":original": {robot: /upload/handle}
                  hash: {robot: /file/hash, use: ":original", result: true}
                fields: {prefix: "${unique_prefix}", original: "${unique_original_prefix}", literal: "$${HOME}"}
            """)
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--json"], environment: [:])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let fields = try JSONValue.parse(Data(plan.stdout.utf8))["assemblies"]?.arrayValue?.first?["instructions"]?["fields"]
        XCTAssertEqual(fields, .object([
            "prefix": .string("${unique_prefix}"), "original": .string("${unique_original_prefix}"), "literal": .string("${HOME}"),
        ]))
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(run.status, 0, run.stderr)
        let misnamed = directory.path + "/pipeline.yml"
        try directory.write("pipeline.yml", try String(contentsOfFile: misnamed, encoding: .utf8).replacingOccurrences(of: "/upload/handle", with: "/file/hash"))
        let refused = await CLIHarness.run(["validate", misnamed])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("':original' must be the /upload/handle step"), refused.stderr)
    }

    func testOneRunAtATimePerRunStateEvenAfterKill9() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        // The first tus creation (POST 2, after the Assembly's) carries its file and hangs after
        // 100 KB of it: the first run holds its lock until it is killed.
        let (proxy, endpoint) = try server.faulty(["POST:2:hang=100000"])
        defer { proxy.stop() }
        let directory = try project(endpoint: String(endpoint.dropLast("/resumable/files/".count)))
        defer { directory.remove() }
        let first = Process()
        first.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        first.arguments = ["run", directory.path + "/pipeline.yml"]
        first.environment = ProcessInfo.processInfo.environment.merging(secret) { $1 }
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        let uploading = await eventually { server.largestStoredSize() >= 100_000 }
        XCTAssertTrue(uploading)
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("another 'pipeline run' of this manifest"), second.stderr)
        let shard = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--shard", "1/2"], environment: secret)
        XCTAssertFalse(shard.stderr.contains("another 'pipeline run'"), "a shard has a run state of its own")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let third = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: secret)
        XCTAssertEqual(third.status, 0, "the kernel dropped the killed run's lock: \(third.stderr)")
    }
}
