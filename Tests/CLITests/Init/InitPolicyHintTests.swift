import Basics
import Foundation
import TestSupport
import XCTest

/// Hints under the policy `pipeline init` writes: a refused option's hint says what the policy
/// allows as the policy's, and apart from it what the robot takes; an option a hint of ours
/// suggests is one that policy allows.
final class InitPolicyHintTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "init-hints")
        try directory.write("photos/a.png", data: TestImages.png(width: 40, height: 30))
    }

    override func tearDown() { directory.remove() }

    /// `pipeline init` for images, then its manifest with `edit` applied.
    private func initialized(_ edit: (String) -> String) async throws -> String {
        let made = await CLIHarness.run(["init", directory.path, "--kind", "images"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let path = directory.path + "/pipeline.yml"
        let manifest = try String(contentsOfFile: path, encoding: .utf8)
        try edit(manifest).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testARefusedOptionsHintNamesWhatThePolicyAllowsApartFromWhatTheRobotTakes() async throws {
        let manifest = try await initialized {
            $0.replacingOccurrences(of: "        strip: true", with: "        strip: true\n        quality: 80")
        }
        let plan = await CLIHarness.run(["plan", manifest])
        XCTAssertEqual(plan.status, 1, plan.stderr)
        XCTAssertTrue(plan.stderr.contains("option 'quality' of /image/resize is not allowed (step 'thumb') [policy.option-not-allowed]"), plan.stderr)
        XCTAssertTrue(plan.stderr.contains(
            "hint: the policy allows these options of /image/resize: height, resize_strategy, result, strip, width; "
                + "/image/resize itself takes 'quality': ask the policy's owners to allow it\n"), plan.stderr)
        XCTAssertFalse(plan.stderr.contains("valid options for"), "the policy's list is never the robot's: \(plan.stderr)")
    }

    func testIgnoreErrorsAsPlansHintSuggestsPassesInitsPolicy() async throws {
        let cut = directory.path + "/photos/cut.jpg"
        try MediaCorpus.image(cut, width: 64, height: 48)
        let whole = try Data(contentsOf: URL(fileURLWithPath: cut))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        let manifest = try await initialized { $0 }
        let refused = await CLIHarness.run(["plan", manifest])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("add 'ignore_errors: [meta, execute]' to step 'thumb'"), refused.stderr)
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "        strip: true", with: "        strip: true\n        ignore_errors: [meta, execute]")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        let plan = await CLIHarness.run(["plan", manifest])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertFalse(plan.stderr.contains("policy."), plan.stderr)
        XCTAssertTrue(plan.stderr.contains("leave it out"), "the cut file is a warning now: \(plan.stderr)")
    }
}
