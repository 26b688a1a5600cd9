import Basics
import Planning
import TestSupport
import XCTest

final class UsageEstimateTests: XCTestCase {
    func testEachStepRunsOncePerFileItIsGivenAndAnArchiveOncePerAssembly() {
        let steps = parseJSON(#"""
            {"steps": {"thumb": {"robot": "/image/resize", "use": ":original"},
                       "small": {"robot": "/image/optimize", "use": "thumb"},
                       "zip": {"robot": "/file/compress", "use": ["thumb", "small"]},
                       "stored": {"robot": "/s3/store", "use": "zip"}}}
            """#)
        let files = (0..<3).map { PlanFixtures.file("f\($0).png", size: 100) }
        let plan = PlanFixtures.plan(PlanFixtures.assemblies("images", steps, [files, [PlanFixtures.file("g.png", size: 50)]]))
        let estimate = UsageEstimate(plan)
        XCTAssertEqual(estimate.jobs.count, 1)
        XCTAssertEqual(estimate.jobs[0].files, 4)
        XCTAssertEqual(estimate.jobs[0].bytes, 350)
        XCTAssertEqual(estimate.jobs[0].executions, ["/image/resize": 4, "/image/optimize": 4, "/file/compress": 2, "/s3/store": 2])
        XCTAssertEqual(estimate.executions, estimate.jobs[0].executions)
    }

    func testATemplateByIdHasUnknownExecutionsAndTheJSONSaysSo() {
        let byID = PlanFixtures.assemblies("videos", .object(["template_id": .string("0123abcd")]), [[PlanFixtures.file("a.mp4")]])
        let plan = PlanFixtures.plan(byID + PlanFixtures.assemblies("thumbs", PlanFixtures.resize(width: 100), [[PlanFixtures.file("b.png")]]))
        let estimate = UsageEstimate(plan)
        XCTAssertNil(estimate.jobs.first { $0.name == "videos" }?.executions)
        XCTAssertEqual(estimate.jobs.first { $0.name == "thumbs" }?.executions, ["/image/resize": 1])
        XCTAssertNil(estimate.executions, "unknown for one job, unknown in all")
        XCTAssertEqual(estimate.json["robot_executions"], .null)
        XCTAssertEqual(estimate.json["jobs"]?["thumbs"]?["files"], .int(1))
    }
}
