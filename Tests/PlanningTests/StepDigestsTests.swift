import Basics
import Planning
import Spec
import XCTest

final class StepDigestsTests: XCTestCase {
    private func instructions(_ steps: [String: JSONValue], fields: [String: JSONValue]? = nil) -> JSONValue {
        var object: [String: JSONValue] = ["steps": .object(steps)]
        if let fields { object["fields"] = .object(fields) }
        return .object(object)
    }

    private func resize(_ width: Int, use: JSONValue = .string(":original")) -> JSONValue {
        .object(["robot": .string("/image/resize"), "use": use, "width": .int(width)])
    }

    func testAStepsDigestFollowsItsOptionsAndWhatItUsesNothingElse() throws {
        let base = try XCTUnwrap(StepDigests.of(instructions(["small": resize(100), "large": resize(800), "tiny": resize(10, use: .string("small"))])))
        let changed = try XCTUnwrap(StepDigests.of(instructions(["small": resize(120), "large": resize(800), "tiny": resize(10, use: .string("small"))])))
        XCTAssertEqual(base["large"], changed["large"], "a step that does not use the changed one keeps its digest")
        XCTAssertNotEqual(base["small"], changed["small"])
        XCTAssertNotEqual(base["tiny"], changed["tiny"], "a step made from a changed one changes with it")
        // A step renamed is the same work: its digest does not hold its name.
        let renamed = try XCTUnwrap(StepDigests.of(instructions(["s": resize(100), "large": resize(800), "tiny": resize(10, use: .string("s"))])))
        XCTAssertEqual(renamed["s"], base["small"])
        XCTAssertEqual(renamed["tiny"], base["tiny"])
        // Fields may be interpolated into any option: they change every digest.
        let fielded = try XCTUnwrap(StepDigests.of(instructions(["small": resize(100), "large": resize(800)], fields: ["site": .string("a")])))
        XCTAssertNotEqual(fielded["large"], base["large"])
        XCTAssertEqual(base.values.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }, true)
    }

    /// `ignore_errors` changes what a failure does, not what a success makes: plan's own hint to
    /// add it for one broken file re-processes none of the others.
    func testIgnoringErrorsKeepsTheDigest() throws {
        var tolerant = resize(100).objectValue ?? [:]
        tolerant["ignore_errors"] = .bool(true)
        let base = try XCTUnwrap(StepDigests.of(instructions(["small": resize(100)])))
        let ignoring = try XCTUnwrap(StepDigests.of(instructions(["small": .object(tolerant)])))
        XCTAssertEqual(base["small"], ignoring["small"])
    }

    func testJobsWhoseResultsDoNotComeOneFilePerSourceAreNotCachedByStep() {
        XCTAssertNil(StepDigests.of(.object(["template_id": .string("abc")])))
        XCTAssertNil(StepDigests.of(.object(["steps": .object(["small": resize(100)]), "template": .object(["name": .string("t")])])))
        XCTAssertNil(StepDigests.of(instructions(["zip": .object(["robot": .string("/file/compress"), "use": .string(":original")])])), "an archive is made of every file")
        XCTAssertNil(StepDigests.of(instructions(["get": .object(["robot": .string("/http/import"), "url": .string("https://example.com/a.png")])])))
        XCTAssertNil(StepDigests.of(instructions([
            "mark": resize(100, use: .object(["steps": .array([.object(["name": .string(":original"), "as": .string("base")]), .object(["name": .string("logo"), "as": .string("watermark")])])])),
            "logo": resize(10),
        ])), "named inputs can bring one file to every other")
        XCTAssertNil(StepDigests.of(instructions(["a": resize(1, use: .string("b")), "b": resize(2, use: .string("a"))])), "a cycle")
        XCTAssertNil(StepDigests.of(instructions(["a": resize(1, use: .string("missing"))])))
        XCTAssertNotNil(StepDigests.of(instructions(["small": resize(100), "store": .object(["robot": .string("/s3/store"), "use": .array([.string("small")])])])))
    }

    /// The local robots' declarations say which of them make each result from one source; the
    /// service's own robots are listed apart, and no robot is both.
    func testTheRobotsCachedStepByStepAreTheDeclaredOnesAndTheServicesOwn() {
        XCTAssertTrue(StepDigests.perFileRobots.isSuperset(of: ["/upload/handle", "/image/resize", "/meta/write", "/s3/store", "/sftp/store", "/meta/read"]))
        XCTAssertTrue(StepDigests.perFileRobots.isDisjoint(with: ["/file/compress", "/file/decompress", "/http/import", "/video/adaptive"]))
        XCTAssertTrue(StepDigests.hostedPerFileRobots.isDisjoint(with: RobotCatalog.local), "a local robot's declaration says it")
        XCTAssertEqual(StepDigests.perFileRobots.subtracting(StepDigests.hostedPerFileRobots),
                       Set(RobotRegistry.byName.filter { $0.value.digest == .perSourceFile }.keys))
    }

    func testPrunedInstructionsHoldTheWantedStepsAndWhatTheyUse() throws {
        let full = instructions([
            "small": resize(100), "tiny": resize(10, use: .string("small")), "large": resize(800),
            "store": .object(["robot": .string("/s3/store"), "use": .array([.string("tiny"), .string("large")])]),
        ], fields: ["site": .string("a")])
        let pruned = StepDigests.pruned(full, to: ["tiny"])
        XCTAssertEqual(Set(pruned["steps"]?.objectValue?.keys.map { $0 } ?? []), ["tiny", "small"])
        XCTAssertEqual(pruned["fields"], full["fields"])
        let store = StepDigests.pruned(full, to: ["store"])
        XCTAssertEqual(Set(store["steps"]?.objectValue?.keys.map { $0 } ?? []), ["store", "tiny", "small", "large"])
        // Steps kept are as they were: their digests are the full job's.
        let fullDigests = try XCTUnwrap(StepDigests.of(full)), prunedDigests = try XCTUnwrap(StepDigests.of(pruned))
        XCTAssertEqual(prunedDigests["tiny"], fullDigests["tiny"])
    }
}
