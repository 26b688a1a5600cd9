import Basics
import Planning
import TestSupport
import XCTest

/// On the hosted service, results a job neither stores nor downloads are temporary: the plan says
/// so at the job, and says nothing elsewhere.
final class TemporaryResultsTests: XCTestCase {
    func testAJobThatNeitherStoresNorDownloadsIsWarnedAboutOnTheHostedServiceOnly() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("a.png", data: TestImages.png(width: 2, height: 2))
        let manifest = try site.write("pipeline.yml", """
            version: 1
            assemblies:
              kept:
                inputs: ["*.png"]
                download: build
                steps: {w: {robot: /image/resize, use: ":original", width: 1}}
              stored:
                inputs: ["*.png"]
                steps:
                  w: {robot: /image/resize, use: ":original", width: 1}
                  s: {robot: /s3/store, use: w, credentials: bucket}
              temporary:
                inputs: ["*.png"]
                steps: {w: {robot: /image/resize, use: ":original", width: 1}}
              remote:
                inputs: ["*.png"]
                template_id: 0123abcd
            """)
        let hosted = PlanningSession(environment: [:]).plan(manifestPath: manifest)
        let warnings = hosted.diagnostics.filter { $0.id == "plan.temporary-results" }
        XCTAssertEqual(warnings.count, 1, "\(hosted.diagnostics)")
        XCTAssertTrue(warnings.first?.message.hasPrefix("job 'temporary' neither stores") == true, warnings.first?.message ?? "")
        XCTAssertEqual(warnings.first?.location?.line, 12)
        XCTAssertNotNil(hosted.value, "a warning, not an error")
        let elsewhere = PlanningSession(environment: ["TRANSLOADIT_ENDPOINT": "http://127.0.0.1:9"]).plan(manifestPath: manifest)
        XCTAssertFalse(elsewhere.diagnostics.contains { $0.id == "plan.temporary-results" }, "another endpoint keeps results its own way")
    }
}
