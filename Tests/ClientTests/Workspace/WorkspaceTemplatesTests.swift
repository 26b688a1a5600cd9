import Basics
import Client
import Foundation
import TestSupport
import XCTest

/// What a manifest records of its Templates is never taken for nothing when it cannot be read:
/// it is not written over (other endpoints' records would go), and another manifest's claims
/// that cannot be read stop a prune rather than count as none.
final class WorkspaceTemplatesTests: XCTestCase {
    func testADamagedRecordIsSaidAndNeverWrittenOver() throws {
        let folder = try TemporaryDirectory(prefix: "templates-state")
        defer { folder.remove() }
        let workspace = Workspace(directory: folder.path, resultsPath: folder.path + "/results.json")
        XCTAssertEqual(try workspace.syncedTemplates(endpoint: "local"), [:], "no record yet: nothing synced")
        let damaged = #"{"https://api2.transloadit.com": {"a": {"id": "t1""#
        let path = try folder.write(".pipeline/templates.json", damaged)
        XCTAssertThrowsError(try workspace.syncedTemplates(endpoint: "local")) { error in
            XCTAssertTrue("\(error)".contains(path) && "\(error)".contains("move it away"), "\(error)")
        }
        XCTAssertThrowsError(try workspace.recordTemplates(["b": SyncedTemplate(id: "t2", contentSHA256: "x")], endpoint: "local"))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), damaged, "left as it was")
    }

    func testAnotherManifestsClaimsThatCannotBeReadAreUnknownNotNone() throws {
        let folder = try TemporaryDirectory(prefix: "templates-state")
        defer { folder.remove() }
        let workspace = Workspace(directory: folder.path, resultsPath: folder.path + "/results.json")
        _ = try folder.write(".pipeline/manifests/other/templates.json", #"{"local": {"a": {"id": "t1", "content_sha256": "x"}}}"#)
        XCTAssertEqual(try workspace.templatesClaimedElsewhere(endpoint: "local"), ["t1"])
        _ = try folder.write(".pipeline/manifests/third/templates.json", "not json")
        XCTAssertThrowsError(try workspace.templatesClaimedElsewhere(endpoint: "local")) { error in
            XCTAssertTrue("\(error)".contains("third/templates.json"), "\(error)")
        }
    }
}
