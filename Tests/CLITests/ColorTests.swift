import Foundation
import TestSupport
import XCTest

/// Colours: only on a terminal (a real pseudo-terminal through `script`), never with NO_COLOR or
/// TERM=dumb unless asked with --color always, never in pipes.
final class ColorTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private let escape = "\u{1B}["

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "color")
        try directory.write("bad.yml", "version: 1\nassemblies: {a: {inputs: x, batch: -1}}\n")
    }

    override func tearDown() { directory.remove() }

    /// Runs the binary on a pseudo-terminal; what it wrote to it.
    private func onTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let command = ([ProcessRunner.pipelineExecutable] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try ProcessRunner.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], in: directory.path,
                                           environment: environment.merging(["TERM": environment["TERM"] ?? "xterm"]) { $1 })
        return result.stdout
    }

    func testColoursOnATerminalOnly() throws {
        let validate = ["validate", "bad.yml"]
        XCTAssertTrue(try onTerminal(validate, environment: ["NO_COLOR": ""]).contains(escape + "1;31merror:"), "a terminal gets colours")
        XCTAssertFalse(try onTerminal(validate, environment: ["NO_COLOR": "1"]).contains(escape), "NO_COLOR turns them off")
        XCTAssertFalse(try onTerminal(validate, environment: ["TERM": "dumb"]).contains(escape), "so does TERM=dumb")
        XCTAssertFalse(try onTerminal(validate + ["--color", "never"]).contains(escape))
        XCTAssertTrue(try onTerminal(validate + ["--color=always"], environment: ["NO_COLOR": "1"]).contains(escape), "asked for, they come")

        let piped = try ProcessRunner.run(ProcessRunner.pipelineExecutable, validate, in: directory.path, environment: ["TERM": "xterm"])
        XCTAssertEqual(piped.status, 1)
        XCTAssertFalse(piped.stderr.contains(escape), "no escape codes in pipes or logs")
        XCTAssertTrue(piped.stderr.contains("bad.yml:2:36: error: 'batch' must be at least 1"), piped.stderr)
        let forced = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["--color", "always"] + validate, in: directory.path)
        XCTAssertTrue(forced.stderr.contains(escape + "1mbad.yml:2:14:" + escape + "0m"), forced.stderr)

        let wrong = try ProcessRunner.run(ProcessRunner.pipelineExecutable, validate + ["--color", "rainbow"], in: directory.path)
        XCTAssertEqual(wrong.status, 64)
        XCTAssertTrue(wrong.stderr.contains("auto, always or never"), wrong.stderr)
    }
}
