import Basics
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `pipeline serve --retention`: a real engine process sweeps what its window no longer holds,
/// without a client asking, and says so at `/metrics`.
final class ServeRetentionTests: XCTestCase {
    func testTheEngineSweepsAnEndedAssemblysFilesOnItsOwn() async throws {
        let directory = try TemporaryDirectory(prefix: "serve-retention")
        defer { directory.remove() }
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", directory.path + "/engine", "--quiet", "--retention", "1s", "--record-retention", "off",
        ])
        defer { serve.stop() }
        let http = HTTPClient()
        let boundary = "retention-test"
        let params = #"{"steps":{"hash":{"robot":"/file/hash","use":":original"}}}"#
        let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"params\"\r\n\r\n\(params)\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a b%.txt\"\r\n\r\nsome bytes\r\n--\(boundary)--\r\n"
        let created = try JSONValue.parse(try await http.send(HTTPRequest(
            method: "POST", url: serve.url("/assemblies"), headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
            body: .data(Data(body.utf8)))).body)
        let id = try XCTUnwrap(created["assembly_id"]?.stringValue)
        let resultURL = try await firstAnswer(within: .seconds(30)) { () async throws -> String? in
            let status = try JSONValue.parse(try await http.send(HTTPRequest(method: "GET", url: serve.url("/assemblies/" + id))).body)
            return status["results"]?["hash"]?.arrayValue?.first?["ssl_url"]?.stringValue
        }
        let url = try XCTUnwrap(resultURL)
        // Gone within a few sweeps of a second's window, and the record says so.
        let gone = try await firstAnswer(within: .seconds(30)) { () async throws -> Int? in
            let status = try await http.send(HTTPRequest(method: "GET", url: url)).status
            return status == 410 ? status : nil
        }
        XCTAssertEqual(gone, 410)
        let status = try JSONValue.parse(try await http.send(HTTPRequest(method: "GET", url: serve.url("/assemblies/" + id))).body)
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"))
        XCTAssertTrue(status["warnings"]?.arrayValue?.contains { $0["level"] == .string("notice") } == true, status.serialized())
        // The files go (410) before the sweep that removed them adds itself to the totals.
        let metrics = try await firstAnswer(within: .seconds(30)) { () async throws -> String? in
            let text = String(decoding: try await http.send(HTTPRequest(method: "GET", url: serve.url("/metrics"))).body, as: UTF8.self)
            return text.contains("pipeline_expired_assemblies_total 1\n") ? text : nil
        } ?? "no metrics counted the expired Assembly"
        XCTAssertTrue(metrics.contains("pipeline_expired_assemblies_total 1\n"), metrics)
        XCTAssertTrue(metrics.contains("pipeline_stored_assemblies 1\n"), metrics)
    }

    func testABadRetentionIsAUsageError() async throws {
        let refused = await CLIHarness.run(["serve", "--port", "0", "--retention", "soon"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("--retention needs a duration such as 30m or 1h, not 'soon'"), refused.stderr)
    }
}
