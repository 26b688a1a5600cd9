import Basics
import Foundation
import TestSupport
import XCTest

/// `pipeline policy suggest` leaves room for the first month of a media team: limits come from
/// what the manifest declares (its batch size, its robots, the values an option takes) and sizes
/// from today's files with a stated margin, so more and larger photos, a new width and one more
/// format still plan, while a robot the manifest never used is still refused.
final class PolicySuggestHeadroomTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "policy-headroom") }
    override func tearDown() { directory.remove() }

    private func photo(_ name: String, width: Int, height: Int) throws {
        try MediaCorpus.image(directory.path + "/photos/" + name, width: width, height: height)
    }

    private func manifest(_ steps: String) throws -> String {
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            policy: policy.yml
            assemblies:
              photos:
                inputs: ["photos/*.{jpg,png}"]
                batch: 10
                steps:
            \(steps)
                download: build

            """)
    }

    func testASuggestedPolicyTakesAMonthOfGrowthAndStillRefusesANewRobot() async throws {
        for index in 1...3 { try photo("day1-\(index).jpg", width: 400, height: 300) }
        let thumb = "      thumb: {robot: /image/resize, use: \":original\", width: 320, format: jpg, strip: true, result: true}"
        let path = try manifest(thumb)
        let suggested = await CLIHarness.run(["policy", "suggest", path, "--out", directory.path + "/policy.yml"])
        XCTAssertEqual(suggested.status, 0, suggested.stderr)
        XCTAssertTrue(suggested.stderr.contains("which the manifest's 'policy: policy.yml' names"), suggested.stderr)
        XCTAssertFalse(suggested.stderr.contains("point the manifest at it"), "it already is: \(suggested.stderr)")
        let policy = try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8)
        XCTAssertTrue(policy.contains("  files_per_assembly: 10   # the manifest's largest batch"), policy)
        XCTAssertTrue(policy.contains("sizes and number ranges 4x what is used today (--margin changes it)"), policy)
        XCTAssertTrue(policy.contains("    width: {type: integer, min: 1, max: 1280}   # given 320; 4x room, from the robot's least"), policy)
        XCTAssertTrue(policy.contains("    format: {enum: [avif, gif, jpeg, jpg, png, tiff, webp]}   # given jpg; the values the local engine runs"), policy)
        XCTAssertTrue(policy.contains("4x the largest file today"), policy)
        let today = await CLIHarness.run(["plan", path])
        XCTAssertEqual(today.status, 0, today.stderr)

        // A month later: twice as many photos again, larger, some PNG; a new width in one more format.
        for index in 1...4 { try photo("month-\(index).jpg", width: 560, height: 420) }
        for index in 1...2 { try photo("month-\(index).png", width: 320, height: 240) }
        let large = "      large: {robot: /image/resize, use: \":original\", width: 1024, format: webp, strip: true, result: true}"
        _ = try manifest(thumb + "\n" + large)
        let month = await CLIHarness.run(["plan", path])
        XCTAssertEqual(month.status, 0, month.stderr)
        XCTAssertFalse(month.stderr.contains("policy."), month.stderr)

        // What the manifest never declared is still refused: a robot, and a width far beyond the room.
        let zip = "      zip: {robot: /file/compress, use: thumb, format: zip}"
        _ = try manifest(thumb + "\n" + zip)
        let robot = await CLIHarness.run(["plan", path])
        XCTAssertEqual(robot.status, 1, robot.stderr)
        XCTAssertTrue(robot.stderr.contains("robot /file/compress is not allowed (step 'zip') [policy.robot-not-allowed]"), robot.stderr)
        _ = try manifest(thumb.replacingOccurrences(of: "width: 320", with: "width: 4000"))
        let wide = await CLIHarness.run(["plan", path])
        XCTAssertEqual(wide.status, 1, wide.stderr)
        XCTAssertTrue(wide.stderr.contains("must be at most 1280"), wide.stderr)
    }

    func testTheMarginIsAFlagAndIsSaid() async throws {
        try photo("a.jpg", width: 400, height: 300)
        let path = try manifest("      thumb: {robot: /image/resize, use: \":original\", width: 320, quality: 80}")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try FileManager.default.removeItem(atPath: path)
        try directory.write("site.yml", text.replacingOccurrences(of: "policy: policy.yml\n", with: ""))
        let suggested = await CLIHarness.run(["policy", "suggest", directory.path + "/site.yml", "--margin", "2x"])
        XCTAssertEqual(suggested.status, 0, suggested.stderr)
        XCTAssertTrue(suggested.stdout.contains("sizes and number ranges 2x what is used today"), suggested.stdout)
        XCTAssertTrue(suggested.stdout.contains("    width: {type: integer, min: 1, max: 640}   # given 320; 2x room, from the robot's least"), suggested.stdout)
        XCTAssertTrue(suggested.stdout.contains("    quality: {type: integer, min: 1, max: 100}   # given 80; 2x room, from the robot's least to the robot's most"), suggested.stdout)
        XCTAssertTrue(suggested.stdout.contains("2x the largest file today"), suggested.stdout)
        let written = await CLIHarness.run(["policy", "suggest", directory.path + "/site.yml", "--out", directory.path + "/rules/site-policy.yml"])
        XCTAssertEqual(written.status, 1, "the folder does not exist: \(written.stderr)")
        try FileManager.default.createDirectory(atPath: directory.path + "/rules", withIntermediateDirectories: true)
        let again = await CLIHarness.run(["policy", "suggest", directory.path + "/site.yml", "--out", directory.path + "/rules/site-policy.yml"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("point the manifest at it with 'policy: rules/site-policy.yml'"), again.stderr)
        let bad = await CLIHarness.run(["policy", "suggest", directory.path + "/site.yml", "--margin", "half"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--margin must be a factor"), bad.stderr)
    }
}
