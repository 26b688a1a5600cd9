import Foundation
import Basics
import Planning
import TestSupport
import XCTest

/// A job's `smart_cdn:` under the policy's `smart_cdn:` rules, said at the manifest's lines by
/// `validate` and by `plan` (which a run goes through before it signs anything).
final class SmartCDNPolicyReviewTests: XCTestCase {
    private let policy = """
        version: 1
        max_expires_in: 1h
        robots:
          /image/resize: {width: {}}
        smart_cdn:
          workspaces: [my-app]
          templates: [thumbs]
          params: {w: {type: integer, max: 2000}}
        """

    private func site(policy: String, smartCDN: String) throws -> (TemporaryDirectory, String) {
        let site = try TemporaryDirectory()
        try site.write("images/a.png", data: TestImages.png(width: 2, height: 1))
        try site.write("policy.yml", policy)
        let path = try site.write("pipeline.yml", """
            version: 1
            policy: policy.yml
            assemblies:
              thumbs:
                inputs: [images/*.png]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
                smart_cdn:
            \(smartCDN)
            """)
        return (site, path)
    }

    private let session = PlanningSession(environment: ["TRANSLOADIT_ENDPOINT": "http://127.0.0.1:9"])

    func testEachRefusalIsAtItsLineWithThePolicysRule() throws {
        let (site, path) = try site(policy: policy, smartCDN: """
                  workspace: other-app
                  template: thumbs
                  params: {w: 400, h: 300}
                  expires_in: 87600h
            """)
        defer { site.remove() }
        let planned = session.plan(manifestPath: path)
        XCTAssertNil(planned.value)
        let note = Diagnostic.Note("policy: \(site.path)/policy.yml")
        XCTAssertEqual(planned.diagnostics, [
            Diagnostic(id: "policy.smart-cdn-workspace", message: "Smart CDN workspace 'other-app' is not allowed",
                       location: SourceLocation(file: path, line: 9, column: 18), notes: [note], hint: "the policy's smart_cdn.workspaces allows: my-app"),
            Diagnostic(id: "policy.smart-cdn-param", message: "Smart CDN URL parameter 'h' is not allowed",
                       location: SourceLocation(file: path, line: 11, column: 24), notes: [note], hint: "did you mean 'w'? (the policy's smart_cdn.params)"),
            Diagnostic(id: "policy.smart-cdn-lifetime", message: "Smart CDN URL lifetime 3650d is longer than the allowed 1h",
                       location: SourceLocation(file: path, line: 12, column: 19), notes: [note],
                       hint: "the policy's max_expires_in (smart_cdn has none of its own) is 1h: ask for 1h or less"),
        ])
        XCTAssertEqual(session.validate(manifestPath: path).diagnostics, planned.diagnostics)
    }

    func testWithoutTheSectionTheSmartCDNKeyIsRefused() throws {
        let withoutSection = policy.components(separatedBy: "smart_cdn:")[0]
        let (site, path) = try site(policy: withoutSection, smartCDN: "      {workspace: my-app, template: thumbs}")
        defer { site.remove() }
        let planned = session.plan(manifestPath: path)
        XCTAssertNil(planned.value)
        XCTAssertEqual(planned.diagnostics.map(\.id), ["policy.smart-cdn-not-allowed"])
        XCTAssertEqual(planned.diagnostics.first?.location, SourceLocation(file: path, line: 8, column: 5))
    }

    func testTheDefaultLifetimeIsJudgedAtTheSmartCDNNode() throws {
        let (site, path) = try site(policy: policy, smartCDN: "      {workspace: my-app, template: thumbs, params: {w: 400}}")
        defer { site.remove() }
        let planned = session.plan(manifestPath: path)
        XCTAssertEqual(planned.diagnostics.map(\.message), ["Smart CDN URL lifetime 1d is longer than the allowed 1h"])
        XCTAssertEqual(planned.diagnostics.first?.location, SourceLocation(file: path, line: 9, column: 7))
        let allowed = try self.site(policy: policy, smartCDN: "      {workspace: my-app, template: thumbs, params: {w: 400}, expires_in: 1h}")
        defer { allowed.0.remove() }
        XCTAssertEqual(session.plan(manifestPath: allowed.1).diagnostics, [])
    }
}
