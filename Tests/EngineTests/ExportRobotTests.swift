import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// Export robots without credentials the engine has, a key or a host are emulated: files are
/// copied under the data folder's `exports/` and reported with `file://` URLs; their `path`
/// variables are expanded, and no path leaves that folder.
final class ExportRobotTests: XCTestCase {
    private func run(_ steps: [String: JSONValue], fields: [String: String] = [:]) async throws -> (JSONValue, EngineTestServer) {
        let server = try EngineTestServer()
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(steps), fields: fields, files: [("file", "My Photo.txt", Data("hello".utf8))])
        XCTAssertEqual(created.status, 200, created.body.serialized())
        return (try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue)), server)
    }

    func testFilesAreCopiedUnderTheirAccountAndPath() async throws {
        let (status, server) = try await run([
            "s3": .object(["robot": .string("/s3/store"), "use": .string(":original"), "credentials": .string("my-bucket"),
                           "path": .string("${fields.folder}/${assembly.id}/${file.url_name}")]),
            "gcs": .object(["robot": .string("/google/store"), "use": .string(":original")]),
        ], fields: ["folder": "site"])
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let id = try XCTUnwrap(status["assembly_id"]?.stringValue)
        let exports = server.data.path + "/exports"
        let s3 = try XCTUnwrap(status["results"]?["s3"]?.arrayValue?.first)
        XCTAssertEqual(s3["ssl_url"], .string(URL(fileURLWithPath: "\(exports)/my-bucket/site/\(id)/My_Photo.txt").absoluteString))
        XCTAssertEqual(try String(contentsOfFile: "\(exports)/my-bucket/site/\(id)/My_Photo.txt", encoding: .utf8), "hello")

        let gcs = try XCTUnwrap(status["results"]?["gcs"]?.arrayValue?.first?["url"]?.stringValue)
        let path = try XCTUnwrap(URL(string: gcs)?.path)
        XCTAssertTrue(path.hasPrefix(exports + "/default/"), path)
        XCTAssertTrue(path.hasSuffix("/My_Photo.txt"), "${unique_prefix}/${file.url_name}: \(path)")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "hello")
    }

    func testUnknownVariablesPathsThatClimbAndOddAccountsFailTheStepByName() async throws {
        let cases: [([String: JSONValue], [String: String], String)] = [
            (["path": .string("${file.secret}")], [:], "'path' uses ${file.secret}, which the local engine does not know"),
            (["path": .string("../../../${file.name}")], [:], "'path' becomes '../../../My Photo.txt', whose part '..' would leave its folder"),
            (["path": .string("a/${fields.up}/b")], ["up": ".."], "whose part '..' would leave its folder"),
            (["credentials": .string("..")], [:], "credentials '..' must be a name of letters, digits"),
        ]
        for (options, fields, message) in cases {
            let step = JSONValue.object(options.merging(["robot": .string("/s3/store"), "use": .string(":original")]) { $1 })
            let (status, server) = try await run(["s3": step], fields: fields)
            server.stop()
            XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
            XCTAssertTrue(status["message"]?.stringValue?.contains(message) == true, "\(status["message"] ?? .null)")
        }
    }
}
