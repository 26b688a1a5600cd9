import Basics
import Planning
import TestSupport
import XCTest

/// A job's download folders are its outputs: a `**` pattern does not take them back as inputs,
/// and a pattern whose files its downloads would replace is an error at the pattern.
final class DownloadAreasTests: XCTestCase {
    private func plan(_ manifest: String, in site: TemporaryDirectory) throws -> Loaded<Plan> {
        PlanningSession(environment: [:]).plan(manifestPath: try site.write("pipeline.yml", manifest))
    }

    func testAJobsOwnDownloadsAreNotItsInputs() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("photos/a.png", data: TestImages.png(width: 3, height: 2))
        try site.write("build/all/w/photos/a.png", data: TestImages.png(width: 2, height: 1))
        try site.write("build/other/b.png", data: TestImages.png(width: 2, height: 2))
        let loaded = try plan("""
            version: 1
            assemblies:
              j:
                inputs: ["**/*.png"]
                download: build/all
                steps: {w: {robot: /image/resize, use: ":original", width: 2}}
            """, in: site)
        let plan = try XCTUnwrap(loaded.value, "\(loaded.diagnostics)")
        XCTAssertEqual(plan.assemblies.flatMap(\.files).map(\.path), ["build/other/b.png", "photos/a.png"], "build/all/w is the job's own output")
    }

    func testAPatternWhoseFilesTheDownloadsWouldReplaceIsAnError() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("photos/a.png", data: TestImages.png(width: 3, height: 2))
        let loaded = try plan("""
            version: 1
            assemblies:
              j:
                inputs: ["photos/*.png"]
                download: .
                steps: {photos: {robot: /image/resize, use: ":original", width: 2}}
            """, in: site)
        XCTAssertNil(loaded.value)
        let error = try XCTUnwrap(loaded.diagnostics.first { $0.id == "plan.inputs-in-downloads" }, "\(loaded.diagnostics)")
        XCTAssertEqual(error.location?.line, 4)
        XCTAssertTrue(error.message.contains("where job 'j' downloads the results of step 'photos'"), error.message)
    }

    func testOnlyExecuteInIgnoreErrorsLeavesABadFileOut() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("photos/empty.png", "")
        for (phases, severity) in [("[meta]", Diagnostic.Severity.error), ("[execute]", .warning), ("true", .warning)] {
            let loaded = try plan("""
                version: 1
                assemblies:
                  j:
                    inputs: ["photos/*.png"]
                    steps: {w: {robot: /image/resize, use: ":original", width: 2, ignore_errors: \(phases)}}
                """, in: site)
            let finding = try XCTUnwrap(loaded.diagnostics.first { $0.id == "plan.empty-file" }, "\(phases): \(loaded.diagnostics)")
            XCTAssertEqual(finding.severity, severity, phases)
        }
    }
}
