import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline run` against a `pipeline serve` asks for each Assembly's end once and is answered
/// when it comes, instead of polling at widening intervals: the engine's request log shows a few
/// status requests per Assembly however long its steps take.
final class StatusWaitEndToEndTests: XCTestCase {
    func testARunIsToldOfEachAssemblysEndInsteadOfPolling() async throws {
        let data = try TemporaryDirectory(prefix: "status-wait-serve")
        let log = data.path + ".log"
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path], errors: log)
        defer { serve.stop(); data.remove(); unlink(log) }
        let project = try TemporaryDirectory(prefix: "status-wait-project")
        defer { project.remove() }
        // Steps that take a while: 12 files of 4 MiB, each hashed five ways.
        for index in 0..<12 {
            _ = try project.write("files/f\(index).bin", data: Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }))
        }
        _ = try project.write("pipeline.yml", """
            version: 1
            endpoint: \(serve.url(""))
            auth:
              key: local
            assemblies:
              hashes:
                inputs: ["files/*.bin"]
                batch: 6
                steps:
                  md5: {robot: /file/hash, use: ":original", algorithm: md5}
                  sha1: {robot: /file/hash, use: ":original", algorithm: sha1}
                  sha256: {robot: /file/hash, use: ":original", algorithm: sha256}
                  sha384: {robot: /file/hash, use: ":original", algorithm: sha384}
                  sha512: {robot: /file/hash, use: ":original", algorithm: sha512}
            """)
        let run = await CLIHarness.run(["run", project.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unused-secret"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        let assemblies = results["assemblies"]?.arrayValue ?? []
        XCTAssertGreaterThanOrEqual(assemblies.count, 2)
        XCTAssertTrue(assemblies.allSatisfy { $0["status"] == .string("ASSEMBLY_COMPLETED") }, results.serialized())
        // Per Assembly: at most one look while it still waited for uploads, one held request, and
        // one more if the held one was answered by the move from uploading to executing.
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        for assembly in assemblies {
            let id = try XCTUnwrap(assembly["assembly_id"]?.stringValue)
            let polls = lines.filter { $0.hasPrefix("GET /assemblies/\(id) ") }
            XCTAssertGreaterThanOrEqual(polls.count, 1)
            XCTAssertLessThanOrEqual(polls.count, 3, "\(polls)")
        }
    }
}
