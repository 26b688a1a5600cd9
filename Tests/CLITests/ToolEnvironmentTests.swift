import Foundation
import TestSupport
import XCTest

/// The robots' tools parse files someone else made: the embedded engine starts them with PATH,
/// HOME, the locale and TMPDIR, never with the Auth Secret, a CI token or anything else the
/// command was given.
final class ToolEnvironmentTests: XCTestCase {
    func testARobotsToolSeesNoSecretNoTokenAndNothingElseOfTheRun() throws {
        let directory = try TestProject.resizing(
            prefix: "tool-environment", endpoint: "local", images: ["a.png": (40, 30)], steps: "      small: {robot: /image/optimize, use: \":original\"}")
        defer { directory.remove() }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let optipng = path.split(separator: ":").map({ $0 + "/optipng" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("optipng is not installed (scripts/setup.sh installs it)")
        }
        // An optipng first on PATH that writes down what it was given, then runs the real one.
        let seen = directory.path + "/seen-environment"
        try directory.write("bin/optipng", "#!/bin/sh\nenv > '\(seen)'\nexec '\(optipng)' \"$@\"\n")
        chmod(directory.path + "/bin/optipng", 0o755)
        let result = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", "pipeline.yml"], in: directory.path, environment: [
            "PATH": directory.path + "/bin:" + path, "TRANSLOADIT_SECRET": "tool-environment-secret", "GITHUB_TOKEN": "ghs_tool_environment_token",
            "AWS_SECRET_ACCESS_KEY": "tool-environment-aws", "LC_ALL": "C.UTF-8",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let variables = Set(try String(contentsOfFile: seen, encoding: .utf8).split(separator: "\n").compactMap { $0.split(separator: "=").first.map(String.init) })
        XCTAssertTrue(variables.contains("PATH") && variables.contains("LC_ALL"), "\(variables.sorted())")
        XCTAssertEqual(variables.subtracting(["PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE", "PWD", "SHLVL", "_"]).filter { !$0.hasPrefix("LC_") }, [],
                       "the tool saw more than it needs")
    }
}
