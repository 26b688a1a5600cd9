import Foundation
import TestSupport
import XCTest

/// `pipeline completions`: the scripts loaded into real shells (bash through `complete -p` and
/// the completion function, fish through `complete -C`, zsh checked for syntax and loaded).
final class CompletionsTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "completions")
        for name in ["site.yml", "other.yaml"] { try directory.write(name, "version: 1\nassemblies: {}\n") }
        // Neither a policy nor the state and repository folders are manifests to offer.
        try directory.write("policy.yml", "version: 1\nrobots: {}\n")
        try directory.write("notes.txt", "")
        for folder in ["images", ".git", ".pipeline"] {
            try FileManager.default.createDirectory(atPath: directory.path + "/" + folder, withIntermediateDirectories: true)
        }
    }

    override func tearDown() { directory.remove() }

    private func script(_ shell: String) throws -> String {
        let made = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["completions", shell])
        XCTAssertEqual(made.status, 0, made.stderr)
        return try directory.write("pipeline.\(shell)", made.stdout)
    }

    func testBashCompletesCommandsOptionsChoicesAndManifests() throws {
        let path = try script("bash")
        let cases: [([String], [String])] = [
            (["pipeline", "ru"], ["run"]),
            (["pipeline", "help", "pl"], ["plan"]),
            (["pipeline", "run", ""], ["images", "other.yaml", "site.yml"]),
            (["pipeline", "run", "--for"], ["--force"]),
            (["pipeline", "upload", "--checksum", ""], ["auto", "off", "crc32", "sha256", "sha1", "md5"]),
            (["pipeline", "run", "--download", ""], ["images"]),
            (["pipeline", "templates", ""], ["list", "pull", "sync"]),
            (["pipeline", "templates", "sync", ""], ["images", "other.yaml", "site.yml"]),
            (["pipeline", "completions", "z"], ["zsh"]),
            (["pipeline", "robots", "/image/res"], ["/image/resize"]),
            (["pipeline", "run", "--concurrency", ""], []),
            (["pipeline", "--color", ""], ["auto", "always", "never"]),
            (["pipeline", "--color", "always", "ru"], ["run"]),
            // Bash splits --color=always into three words.
            (["pipeline", "--color", "=", "always", "ru"], ["run"]),
            (["pipeline", "--color", "=", ""], ["auto", "always", "never"]),
            (["pipeline", "run", "--color", "=", "always", ""], ["images", "other.yaml", "site.yml"]),
            (["pipeline", "run", "--color", "always", ""], ["images", "other.yaml", "site.yml"]),
            (["pipeline", "run", "--col"], ["--color"]),
            (["pipeline", "init", ""], ["images"]),
            (["pipeline", "diff", "n"], ["notes.txt"]),
            (["pipeline", "plan", "p"], []),
            (["pipeline", "plan", ".g"], [".git"]),
        ]
        for (words, expected) in cases {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source '\(path)'
                complete -p pipeline
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=()
                _pipeline
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try ProcessRunner.run("/bin/bash", ["-c", program], in: directory.path)
            XCTAssertEqual(result.status, 0, result.stderr)
            var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(lines.first, "complete -F _pipeline pipeline")
            lines = lines.dropFirst().filter { !$0.isEmpty }
            XCTAssertEqual(Set(lines), Set(expected), words.joined(separator: " "))
        }
    }

    func testFishCompletesTheSame() throws {
        let path = try script("fish")
        for (line, expected) in [("pipeline upload --checksum ", ["auto", "off", "crc32", "sha256", "sha1", "md5"]),
                                 ("pipeline run ", ["images/", "other.yaml", "site.yml"]), ("pipeline completions ", ["bash", "zsh", "fish"]),
                                 ("pipeline --color ", ["auto", "always", "never"]), ("pipeline --color always ru", ["run"]),
                                 ("pipeline --color=never ru", ["run"])] {
            let result = try ProcessRunner.run("/usr/bin/fish", ["-c", "source '\(path)'; complete -C '\(line)'"], in: directory.path)
            XCTAssertEqual(result.status, 0, "fish is needed (scripts/setup.sh installs it): \(result.stderr)")
            let offered = result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
            XCTAssertEqual(Set(offered), Set(expected), line)
        }
    }

    func testZshLoadsTheScript() throws {
        let path = try script("zsh")
        let syntax = try ProcessRunner.run("/usr/bin/zsh", ["-n", path])
        XCTAssertEqual(syntax.status, 0, "zsh is needed (scripts/setup.sh installs it): \(syntax.stderr)")
        let loaded = try ProcessRunner.run("/usr/bin/zsh", ["-f", "-c", "autoload -Uz compinit && compinit -u -D && source '\(path)' && whence -w _pipeline"])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        XCTAssertTrue(loaded.stdout.contains("_pipeline: function"), loaded.stdout)
        // Sourced, it registers itself for the command.
        let registered = try ProcessRunner.run("/usr/bin/zsh", ["-f", "-c", "autoload -Uz compinit && compinit -u -D && source '\(path)' && print -r -- $_comps[pipeline]"])
        XCTAssertEqual(registered.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "_pipeline", registered.stderr)
    }

    func testUnknownShellsAreUsageErrors() throws {
        let result = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["completions", "powershell"])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("bash, zsh or fish"), result.stderr)
    }
}
