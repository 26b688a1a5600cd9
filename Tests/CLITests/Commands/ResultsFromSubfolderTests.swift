import Foundation
import Basics
import TestSupport
import XCTest

/// `pipeline results` from a folder inside the project prints paths as that folder sees them,
/// so they can be pasted into the next command there.
final class ResultsFromSubfolderTests: XCTestCase {
    func testPathsAreRelativeToTheCurrentFolder() throws {
        let directory = try TestProject.resizing(
            prefix: "results-here", endpoint: "local", images: ["a.png": (4, 2)],
            steps: "      small: {robot: /image/resize, use: \":original\", width: 2}", download: "build")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path + "/images/sub", withIntermediateDirectories: true)
        _ = try ProcessRunner.run("/usr/bin/git", ["init", "-q", "."], in: directory.path)
        let run = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", "-q"], in: directory.path)
        XCTAssertEqual(run.status, 0, run.stderr)

        let top = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["results"], in: directory.path)
        XCTAssertTrue(top.stdout.hasPrefix("images/a.png\n  small: build/small/a.png"), top.stdout)

        let inside = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["results"], in: directory.path + "/images/sub")
        XCTAssertEqual(inside.status, 0, inside.stderr)
        XCTAssertTrue(inside.stdout.hasPrefix("../a.png\n  small: ../../build/small/a.png"), inside.stdout)
        let named = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["results", "../a.png", "--json"], in: directory.path + "/images/sub")
        XCTAssertEqual(named.status, 0, named.stderr)
        let json = try JSONValue.parse(Data(named.stdout.utf8))
        XCTAssertEqual(json["sources"]?["../a.png"]?.arrayValue?.first?["local_path"], .string("../../build/small/a.png"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/images/sub/../../build/small/a.png"), "the path leads to the download")

        let above = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["results", directory.path + "/pipeline.yml"], in: directory.path + "/..")
        let name = (directory.path as NSString).lastPathComponent
        XCTAssertTrue(above.stdout.hasPrefix("\(name)/images/a.png\n  small: \(name)/build/small/a.png"), above.stdout)
    }
}
