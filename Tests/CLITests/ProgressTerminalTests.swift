import Foundation
import TestSupport
import XCTest

/// The progress line on a real pseudo-terminal 80 columns wide: every redraw fits on one row, so
/// it never leaves half lines behind.
final class ProgressTerminalTests: XCTestCase {
    func testEveryRedrawFitsAnEightyColumnTerminal() throws {
        let directory = try TemporaryDirectory(prefix: "progress-tty")
        defer { directory.remove() }
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
        // `script` gives the command a pseudo-terminal; stty makes it 80 columns wide.
        let command = "stty cols 80 rows 24; '\(ProcessRunner.pipelineExecutable)' run pipeline.yml"
        let result = try ProcessRunner.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], in: directory.path)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let text = result.stdout.replacingOccurrences(of: "\u{1B}[K", with: "")
        let rows = text.components(separatedBy: CharacterSet(charactersIn: "\r\n")).filter { !$0.isEmpty }
        XCTAssertTrue(rows.contains { $0.contains("uploaded") }, "the progress line was drawn: \(rows.prefix(5))")
        // A log line is followed at once by the progress line again: it stays on the last row.
        let logThenProgress = zip(rows, rows.dropFirst()).contains { ($0.hasPrefix("created") || $0.hasPrefix("[")) && $1.contains(" uploaded (") }
        XCTAssertTrue(logThenProgress, "\(rows.prefix(12))")
        // Every redrawn row (the progress line) fits; log lines above it may wrap as any text does.
        for row in rows where row.contains(" uploaded (") {
            XCTAssertLessThan(row.count, 80, "wider than the terminal: \(row)")
        }
    }
}
