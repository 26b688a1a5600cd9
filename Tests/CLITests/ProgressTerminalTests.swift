import Foundation
import TestSupport
import XCTest

/// The progress line on a real pseudo-terminal 80 columns wide: every redraw fits on one row, so
/// it never leaves half lines behind.
final class ProgressTerminalTests: XCTestCase {
    func testEveryRedrawFitsAnEightyColumnTerminal() throws {
        let directory = try project()
        defer { directory.remove() }
        // `script` gives the command a pseudo-terminal; stty makes it 80 columns wide.
        let rows = try terminalRows("stty cols 80 rows 24; '\(ProcessRunner.pipelineExecutable)' run pipeline.yml -v", in: directory)
        XCTAssertTrue(rows.contains { $0.hasPrefix("processing: ") }, "the progress line was drawn, naming the phase: \(rows.prefix(5))")
        // A log line is followed at once by the progress line again: it stays on the last row.
        let logThenProgress = zip(rows, rows.dropFirst()).contains { ($0.hasPrefix("created") || $0.hasPrefix("[")) && $1.contains(" Assemblies done (") }
        XCTAssertTrue(logThenProgress, "\(rows.prefix(12))")
        // Every redrawn row (the progress line) fits; log lines above it may wrap as any text does.
        for row in rows where row.contains(" Assemblies done (") {
            XCTAssertLessThan(row.count, 80, "wider than the terminal: \(row)")
        }
    }

    func testWithoutVerboseOnlyTheProgressLineMovesAndAResizeIsFollowed() throws {
        let directory = try project()
        defer { directory.remove() }
        // The terminal narrows to 50 columns once the run has made two Assemblies (one at a time,
        // so most are still to come); the run is told by SIGWINCH.
        let command = "stty cols 120 rows 24; '\(ProcessRunner.pipelineExecutable)' run pipeline.yml --concurrency 1 & pid=$!; "
            + "i=0; until [ \"$(ls .pipeline/engine/assemblies/*.json 2>/dev/null | wc -l)\" -ge 2 ] || [ $i -ge 500 ]; do sleep 0.02; i=$((i + 1)); done; "
            + "stty cols 50; kill -WINCH $pid 2>/dev/null; wait $pid"
        let rows = try terminalRows(command, in: directory)
        XCTAssertFalse(rows.contains { $0.hasPrefix("created") || $0.hasPrefix("[") }, "no line per Assembly: \(rows.prefix(8))")
        let progress = rows.filter { $0.contains(" Assemblies done (") }
        XCTAssertTrue(progress.contains { $0.count > 50 }, "drawn wide at first: \(progress.prefix(3))")
        XCTAssertTrue(progress.contains { $0.count <= 49 && $0.hasSuffix("…") }, "fitted to 50 columns after the resize: \(progress.suffix(3))")
        XCTAssertTrue(rows.last?.hasPrefix("Run: 60 completed") == true, "\(rows.suffix(2))")
    }

    /// 60 files of 2 MiB, one per Assembly, on the embedded engine: a run of a few seconds.
    private func project() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "progress-tty")
        let content = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        for index in 0..<60 { try directory.write("files/f\(index).bin", data: content + Data("\(index)".utf8)) }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              hashes:
                inputs: ["files/*.bin"]
                batch: 1
                steps:
                  hash: {robot: /file/hash, use: ":original", algorithm: sha256}
            """)
        return directory
    }

    /// What the terminal showed, row by row, for `command` run on a pseudo-terminal by `script`.
    private func terminalRows(_ command: String, in directory: TemporaryDirectory) throws -> [String] {
        let result = try ProcessRunner.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], in: directory.path)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let text = result.stdout.replacingOccurrences(of: "\u{1B}[K", with: "")
        return text.components(separatedBy: CharacterSet(charactersIn: "\r\n")).filter { !$0.isEmpty }
    }
}
