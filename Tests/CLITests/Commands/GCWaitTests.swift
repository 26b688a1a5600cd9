import Foundation
import TestSupport
import XCTest

/// `pipeline gc` on an engine folder another command uses waits for it, saying so, as every
/// command does (docs/engine.md), and gives up after a while rather than at once.
final class GCWaitTests: XCTestCase {
    func testGCWaitsForTheEngineFolderToBeFree() async throws {
        let directory = try TestProject.hashing(prefix: "gc-wait", endpoint: "local", files: ["a.bin": Data("a".utf8)])
        defer { directory.remove() }
        let manifest = directory.path + "/pipeline.yml"
        let run = await CLIHarness.run(["run", manifest, "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", directory.path + "/.pipeline/engine", "--quiet"])
        // The engine goes once gc says it waits for it.
        let (waiting, saidWaiting) = AsyncStream<Void>.makeStream()
        async let collected = CLIHarness.run(["gc", manifest]) { text in
            if text.contains("pipeline: waiting for") { saidWaiting.yield() }
        }
        for await _ in waiting { break }
        serve.stop()
        let gc = await collected
        XCTAssertEqual(gc.status, 0, gc.stderr)
        XCTAssertTrue(gc.stderr.contains("pipeline: waiting for \(directory.path)/.pipeline/engine, in use by another pipeline command or a pipeline serve"), gc.stderr)
        XCTAssertTrue(gc.stdout.contains("Removed 0 Assemblies"), gc.stdout)
    }
}
