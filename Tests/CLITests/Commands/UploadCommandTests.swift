import Foundation
import Basics
import EngineTestSupport
import TestSupport
import XCTest

/// `pipeline upload` as a user runs it, against litestar-tus.
final class UploadCommandTests: XCTestCase {
    func testUploadsFilesAndPrintsTheirURLsAsJSON() async throws {
        let peers = try LitestarServer()
        defer { peers.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try directory.write("a.txt", "first file")
        let second = try directory.write("b.bin", data: Data(repeating: 7, count: 2_000_000))
        let result = await CLIHarness.run([
            "upload", first, second, "--endpoint", peers.endpoint, "--json", "--quiet", "--metadata", "team=web",
            "--state-dir", directory.path + "/state",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONValue.parse(Data(result.stdout.utf8))
        let uploads = try XCTUnwrap(report["uploads"]?.arrayValue)
        XCTAssertEqual(uploads.map { $0["path"] }, [.string(first), .string(second)])
        XCTAssertEqual(uploads.map { $0["size"] }, [.int(10), .int(2_000_000)])
        for (upload, path) in zip(uploads, [first, second]) {
            let url = try XCTUnwrap(upload["url"]?.stringValue)
            XCTAssertEqual(try peers.storedBytes(of: url), try Data(contentsOf: URL(fileURLWithPath: path)))
            let info = try String(contentsOfFile: peers.store.path + "/" + (url.split(separator: "/").last.map(String.init) ?? "") + ".info", encoding: .utf8)
            XCTAssertTrue(info.contains("\"team\": \"web\""), info)
        }
        XCTAssertEqual(report["failed"], .array([]))
    }

    func testMissingFileFailsWithItsNameAndOthersStillUpload() async throws {
        let peers = try LitestarServer()
        defer { peers.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write("good.txt", "fine")
        let result = await CLIHarness.run([
            "upload", good, directory.path + "/missing.txt", "--endpoint", peers.endpoint, "--quiet",
            "--state-dir", directory.path + "/state",
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.hasPrefix(good + "\t" + peers.endpoint), result.stdout)
        XCTAssertTrue(result.stderr.contains("missing.txt: cannot read '\(directory.path)/missing.txt': No such file or directory"), result.stderr)
    }

    func testBadOptionsAreUsageErrors() async {
        let cases: [([String], String)] = [
            (["upload", "a"], "missing --endpoint URL"),
            (["upload", "a", "--endpoint", "ftp://x"], "--endpoint must be an http(s) URL"),
            (["upload", "a", "--endpoint", "http://x/", "--chunk-size", "lots"], "--chunk-size needs a size"),
            (["upload", "a", "--endpoint", "http://x/", "--parallel", "0"], "--parallel needs a number from 1 to 64"),
            (["upload", "a", "--endpoint", "http://x/", "--checksum", "crc"], "--checksum must be auto, off"),
            (["upload", "a", "--endpoint", "http://x/", "--metadata", "novalue"], "--metadata needs KEY=VALUE"),
            (["upload", "a", "--endpoint", "http://x/", "--retry-delays", "1s,soon"], "--retry-delays needs durations"),
        ]
        for (arguments, message) in cases {
            let result = await CLIHarness.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    func testRunningTheSameUploadAgainSendsNoFinishedFileAgain() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let small = try directory.write("small.txt", "small file")
        let large = try directory.write("large.bin", data: Data(repeating: 5, count: 6_000_000))
        let arguments = ["upload", small, large, "--endpoint", server.endpoint, "--json", "--quiet", "--state-dir", directory.path + "/state"]
        let first = await CLIHarness.run(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        let created = server.createdUploads()
        let second = await CLIHarness.run(arguments)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(server.createdUploads(), created, "no upload was created again")
        let urls = { (text: String) in (try? JSONValue.parse(Data(text.utf8)))?["uploads"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? [] }
        XCTAssertEqual(urls(second.stdout), urls(first.stdout))
        XCTAssertEqual(urls(first.stdout).count, 2)
    }

    func testAFIFOIsRefusedWithoutBlocking() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let server = try EngineTestServer()
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = await CLIHarness.run(["upload", fifo, "--endpoint", server.endpoint, "--json", "--quiet", "--state-dir", directory.path + "/state"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue((result.stdout + result.stderr).contains("is not a regular file"), result.stdout + result.stderr)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20), "the open did not block on the FIFO")
    }

    /// Kill the command with SIGKILL in the middle of a large upload; running it again sends
    /// only the bytes the server does not have.
    func testResumesAfterTheProcessIsKilledWithLitestar() async throws {
        try await resumesAfterTheProcessIsKilled(try LitestarServer(), hangRule: "PATCH:1:hang=20000000", checksum: "off", kept: 20_000_000)
    }

    func testResumesAfterTheProcessIsKilledWithTheEngine() async throws {
        try await resumesAfterTheProcessIsKilled(try EngineTestServer(), hangRule: "PATCH:1:hang=20000000", checksum: "off", kept: 20_000_000)
    }

    /// With checksums the server keeps only verified chunks, so the upload goes in 8 MiB
    /// chunks and a kill loses at most the chunk in flight.
    func testResumesFromTheLastVerifiedChunkWithChecksums() async throws {
        try await resumesAfterTheProcessIsKilled(try EngineTestServer(), hangRule: "PATCH:2:hang=5000000", checksum: "auto", kept: 8 << 20,
            arrived: (8 << 20) + 5_000_000)
    }

    /// Kills an upload once `arrived` bytes (default `kept`) reached the server behind a proxy
    /// that holds a request after `hangRule`'s bytes; the server keeps `kept`, the rerun sends the rest.
    private func resumesAfterTheProcessIsKilled(
        _ server: any TusTestServer, hangRule: String, checksum: String, kept: Int, arrived: Int? = nil
    ) async throws {
        defer { server.stop() }
        let (proxy, endpoint) = try server.faulty([hangRule])
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let size = 48_000_000
        var generator = SystemRandomNumberGenerator()
        let content = Data((0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
        let path = try directory.write("large.bin", data: content)
        let arguments = [
            "upload", path, "--endpoint", endpoint, "--json", "--quiet", "--checksum", checksum, "--state-dir", directory.path + "/state",
        ]

        let first = Process()
        first.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        first.arguments = arguments
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        // Wait until the server holds what the proxy lets through, then kill the command without warning.
        await eventually(within: .seconds(30)) { server.largestStoredSize() >= arrived ?? kept }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        // The server notices the dropped connection and keeps what it could verify.
        await eventually { server.largestStoredSize() == kept }
        XCTAssertEqual(server.largestStoredSize(), kept, "the server kept what arrived (and could be verified) before the kill")

        let second = try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments)
        XCTAssertEqual(second.status, 0, second.stderr)
        let upload = try XCTUnwrap(JSONValue.parse(Data(second.stdout.utf8))["uploads"]?.arrayValue?.first)
        XCTAssertEqual(upload["resumed_from"], .int(kept), "only the missing bytes were sent again")
        XCTAssertEqual(try server.storedBytes(of: upload["url"]?.stringValue ?? ""), content)
    }
}
