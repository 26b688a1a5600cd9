import Foundation
import TestSupport
import XCTest

/// The built `pipeline` binary, run as a user runs it.
final class ExecutableTests: XCTestCase {
    func testExitCodesOfTheRealBinary() async throws {
        let project = try ProjectFixture()
        let binary = ProcessRunner.pipelineExecutable
        let ok = try ProcessRunner.run(binary, ["plan", "pipeline.yml"], in: project.directory.path)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("Plan for 'fixture' (pipeline.yml)"), ok.stdout)

        try project.directory.write("broken.yml", "version: 1\nassemblies:\n  a:\n    inputz: [x]\n")
        let broken = try ProcessRunner.run(binary, ["validate", "broken.yml"], in: project.directory.path)
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stderr.contains("broken.yml:4:5: error: unknown key 'inputz' in job 'a' [manifest.unknown-key]\n"), broken.stderr)
        XCTAssertTrue(broken.stderr.contains("broken.yml:3:3: error: job 'a' is missing the required key 'inputs' [manifest.missing-key]\n"), broken.stderr)
        XCTAssertTrue(broken.stderr.hasSuffix("3 errors\n"), broken.stderr)

        let usage = try ProcessRunner.run(binary, ["plan", "--bogus"], in: project.directory.path)
        XCTAssertEqual(usage.status, 64)
    }

    func testOneCharacterManifestPathsAreReadNotCrashedOn() async throws {
        let project = try ProjectFixture()
        let binary = ProcessRunner.pipelineExecutable
        try FileManager.default.copyItem(atPath: project.directory.path + "/pipeline.yml", toPath: project.directory.path + "/m")
        for command in ["validate", "plan", "status"] {
            let named = try ProcessRunner.run(binary, [command, "m"], in: project.directory.path)
            XCTAssertLessThanOrEqual(named.status, 1, "\(command) m: \(named.stderr)")
            XCTAssertFalse(named.stderr.contains("crashed"), named.stderr)
            let dash = try ProcessRunner.run(binary, [command, "-"], in: project.directory.path)
            XCTAssertEqual(dash.status, 1, "\(command) -: \(dash.stderr)")
            XCTAssertTrue(dash.stderr.contains("cannot open '-'"), dash.stderr)
        }
        let planned = try ProcessRunner.run(binary, ["plan", "m"], in: project.directory.path)
        XCTAssertEqual(planned.status, 0, planned.stderr)
    }
}

/// `pipeline serve` as a process: it prints where it listens and stops cleanly on SIGTERM.
final class ServeProcessTests: XCTestCase {
    func testServeStopsCleanlyOnSIGTERM() throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["serve", "--port", "0", "--data-dir", data.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("authentication:"), Date() < deadline {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("pipeline serve: listening on http://127.0.0.1:"), text)
        XCTAssertTrue(text.contains("authentication: off"), text)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains("pipeline serve: stopping (signal 15)"), log)
    }

    func testBusyPortIsAClearError() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let first = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path, "--quiet"])
        defer { first.stop() }
        let second = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["serve", "--port", String(first.port), "--data-dir", data.path + "/other"])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("cannot listen on 127.0.0.1:\(first.port)"), second.stderr)
        XCTAssertTrue(second.stderr.contains("hint: pick another --port"), second.stderr)
        // One engine per data folder: a second one on the same folder is refused, whatever its port.
        let shared = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path])
        XCTAssertEqual(shared.status, 1)
        XCTAssertTrue(shared.stderr.contains("another engine is using the data folder '\(data.path)'"), shared.stderr)
    }
}
