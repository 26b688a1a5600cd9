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
}
