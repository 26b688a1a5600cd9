import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline upload` and `pipeline run` against a `pipeline serve` on this machine hand the files
/// over as open descriptors: the engine's request log shows them handed over and no request with
/// their bytes, and what it stores is byte for byte the files.
final class HandoffEndToEndTests: XCTestCase {
    private func serve(_ data: TemporaryDirectory, _ extra: [String] = []) throws -> (ServerProcess, log: String) {
        let log = data.path + "/../" + URL(fileURLWithPath: data.path).lastPathComponent + ".log"
        return (try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path] + extra, errors: log), log)
    }

    private func requests(_ log: String) -> [Substring] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    func testUploadAndRunHandFilesToALocalServe() async throws {
        let data = try TemporaryDirectory(prefix: "handoff-serve")
        let (serve, log) = try serve(data)
        defer { serve.stop(); data.remove(); unlink(log) }
        let project = try TemporaryDirectory(prefix: "handoff-project")
        defer { project.remove() }
        let big = Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) })
        _ = try project.write("files/big.bin", data: big)
        _ = try project.write("files/small.bin", data: Data("small".utf8))

        let upload = await CLIHarness.run(["upload", project.path + "/files/big.bin", "--endpoint", serve.url("/resumable/files/"), "--json", "--quiet"])
        XCTAssertEqual(upload.status, 0, upload.stderr)
        let url = try XCTUnwrap(JSONValue.parse(Data(upload.stdout.utf8))["uploads"]?.arrayValue?.first?["url"]?.stringValue)
        let id = try XCTUnwrap(url.split(separator: "/").last)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: data.path + "/uploads/\(id).bin")), big)

        _ = try project.write("pipeline.yml", """
            version: 1
            endpoint: \(serve.url(""))
            auth:
              key: local
            assemblies:
              hashes:
                inputs: ["files/*.bin"]
                batch: all
                steps:
                  hash: {robot: /file/hash, use: ":original", algorithm: sha256}
            """)
        let run = await CLIHarness.run(["run", project.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unused-secret"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        let hashes = results["assemblies"]?.arrayValue?.first?["results"]?["hash"]?.arrayValue?.compactMap { $0["meta"]?["hash"]?.stringValue } ?? []
        XCTAssertEqual(Set(hashes), [FileHashing.sha256(big), FileHashing.sha256(Data("small".utf8))])
        // No request carried a file's bytes: the small file was made in one message, the 6 MiB
        // ones were created over HTTP (keeping a resume record) and then handed over.
        // serve logs a request once it has answered it: the last line may come just after the run ends.
        await eventually { requests(log).filter { $0.hasPrefix("HANDOFF append /resumable/files/") }.count >= 2 }
        let lines = requests(log)
        XCTAssertEqual(lines.filter { $0.hasPrefix("PATCH") }, [], "\(lines)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("HANDOFF create /resumable/files/") && $0.contains(" 201 ") }.count, 1, "\(lines)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("HANDOFF append /resumable/files/") && $0.contains(" 204 ") }.count, 2, "\(lines)")
    }

    func testServeWithoutTheHandoffTakesTheBytesOverHTTP() async throws {
        let data = try TemporaryDirectory(prefix: "handoff-serve")
        let (serve, log) = try serve(data, ["--no-handoff"])
        defer { serve.stop(); data.remove(); unlink(log) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: data.path + "/handoff.sock"))
        let project = try TemporaryDirectory(prefix: "handoff-project")
        defer { project.remove() }
        let big = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let path = try project.write("big.bin", data: big)
        let upload = await CLIHarness.run(["upload", path, "--endpoint", serve.url("/resumable/files/"), "--chunk-size", "1MiB", "--quiet"])
        XCTAssertEqual(upload.status, 0, upload.stderr)
        // As above: wait for the last PATCH's line.
        let patches = { self.requests(log).filter { $0.hasPrefix("PATCH /resumable/files/") }.count }
        await eventually { patches() >= 3 }
        XCTAssertEqual(patches(), 3, "\(requests(log))")
    }
}
