import Foundation
import TestSupport
import XCTest

/// The documentation's examples, run as written: every fenced block whose info string is
/// `sh tested` in README.md and docs/*.md runs with `bash -euo pipefail` in a fresh folder, with
/// the built `pipeline` first on PATH, a clean environment and every proxy variable pointing at a
/// closed port on 127.0.0.1 (so nothing reaches beyond this machine), and must exit 0.
final class DocsExamplesTests: XCTestCase {
    /// One `sh tested` block: the file, the line of its opening fence, and its text.
    struct Example {
        var file: String
        var line: Int
        var script: String
    }

    /// The `sh tested` blocks of one Markdown text, in order; an indented block loses the
    /// indentation of its opening fence.
    static func examples(in text: String, file: String) -> [Example] {
        var found: [Example] = []
        var openLine = 0
        var indent = 0
        var inside = false
        var tested = false
        var body: [String] = []
        let lines = text.components(separatedBy: "\n")
        for (index, line) in lines.enumerated() {
            let spaces = line.prefix { $0 == " " }.count
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !inside {
                if trimmed.hasPrefix("```") {
                    let info = trimmed.dropFirst(3).split(separator: " ").map { String($0) }
                    inside = true
                    tested = info == ["sh", "tested"]
                    openLine = index + 1
                    indent = spaces
                    body = []
                }
            } else if trimmed == "```" {
                if tested {
                    found.append(Example(file: file, line: openLine, script: body.joined(separator: "\n") + "\n"))
                }
                inside = false
            } else {
                body.append(String(line.dropFirst(min(indent, spaces))))
            }
        }
        return found
    }

    /// Every `sh tested` block of README.md and docs/*.md.
    static func allExamples() throws -> [Example] {
        let root = PackageRoot.path
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs")
            .filter { $0.hasSuffix(".md") }
            .sorted()
        var found: [Example] = []
        for document in ["README.md"] + docs.map({ "docs/" + $0 }) {
            let text = try String(contentsOfFile: root + "/" + document, encoding: .utf8)
            found += Self.examples(in: text, file: document)
        }
        return found
    }

    func testTheParserFindsOnlyTestedBlocks() {
        let text = """
            # Title

            ```sh
            echo not tested
            ```

            ```sh tested
            echo one
            echo two
            ```

            - a list item:

              ```sh tested
              echo indented
              ```

            ```yaml
            key: value
            ```
            """
        let found = Self.examples(in: text, file: "sample.md")
        XCTAssertEqual(found.map(\.line), [7, 14])
        XCTAssertEqual(found.map(\.script), ["echo one\necho two\n", "echo indented\n"])
    }

    func testEveryTestedExampleRuns() throws {
        let examples = try Self.allExamples()
        XCTAssertGreaterThanOrEqual(examples.count, 6, "sh tested blocks found: \(examples.map { "\($0.file):\($0.line)" })")

        let binaries = (ProcessRunner.pipelineExecutable as NSString).deletingLastPathComponent
        let systemPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let closed = "http://127.0.0.1:9"
        for example in examples {
            let folder = try TemporaryDirectory(prefix: "docs-example")
            defer { folder.remove() }
            let environment = [
                "PATH=\(binaries):\(systemPath)",
                "HOME=\(folder.path)",
                "TMPDIR=\(NSTemporaryDirectory())",
                "LANG=C.UTF-8",
                "http_proxy=\(closed)", "https_proxy=\(closed)", "HTTPS_PROXY=\(closed)",
                "all_proxy=\(closed)", "ALL_PROXY=\(closed)",
                "no_proxy=127.0.0.1,localhost", "NO_PROXY=127.0.0.1,localhost",
            ]
            let arguments = ["-i"] + environment + ["timeout", "120", "bash", "-euo", "pipefail", "-c", example.script]
            let result = try ProcessRunner.run("/usr/bin/env", arguments, in: folder.path)
            XCTAssertEqual(
                result.status, 0,
                """
                \(example.file):\(example.line): this sh tested block exited \(result.status)
                --- block
                \(example.script)--- stdout
                \(result.stdout)
                --- stderr
                \(result.stderr)
                """)
        }
    }
}
