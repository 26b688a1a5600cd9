import Foundation
import HTTPClient
import TestSupport
import XCTest

/// The libcurl client against a real HTTP server on 127.0.0.1.
final class HTTPClientTests: XCTestCase {
    private func startServer() throws -> ServerProcess {
        try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/HTTPClientTests/Fixtures/http_server.py"])
    }

    private func echo(_ response: HTTPResponse) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    func testFileBodyIsStreamedFromItsOffsetWithContentLength() async throws {
        let server = try startServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let content = Data((0..<300_000).map { UInt8($0 % 251) })
        let path = try directory.write("body.bin", data: content)
        let request = HTTPRequest(
            method: "PATCH", url: server.url("/echo"), headers: [("Upload-Offset", "1000")],
            body: .file(path: path, offset: 1000, length: 200_000))
        let response = try await HTTPClient().send(request)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["x-mixed-case"], "yes", "header lookup ignores case")
        let report = try echo(response)
        let headers = try XCTUnwrap(report["headers"] as? [String: String])
        XCTAssertEqual(report["method"] as? String, "PATCH")
        XCTAssertEqual(headers["content-length"], "200000")
        XCTAssertNil(headers["transfer-encoding"], "never chunked")
        XCTAssertEqual(headers["upload-offset"], "1000")
        XCTAssertEqual(report["length"] as? Int, 200_000)
        let expected = content.subdata(in: 1000..<201_000)
        XCTAssertEqual(report["sha256"] as? String, try sha256(expected))
    }

    func testRedirectsAreNotFollowedUnlessAsked() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = HTTPClient()
        let plain = try await client.send(HTTPRequest(method: "GET", url: server.url("/redirect")))
        XCTAssertEqual(plain.status, 302)
        XCTAssertEqual(plain.headers["Location"], "/echo")
        let followed = try await client.send(HTTPRequest(method: "GET", url: server.url("/redirect"), followsRedirects: true))
        XCTAssertEqual(followed.status, 200)
    }

    func testStatusesAreResponsesNotErrors() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPRequest(method: "DELETE", url: server.url("/status/409")))
        XCTAssertEqual(response.status, 409)
        XCTAssertEqual(response.bodyText(), "status body")
    }

    func testStalledTransferIsAbortedByTheStallTimeout() async throws {
        let server = try startServer()
        defer { server.stop() }
        let timeouts = HTTPTimeouts(connect: .seconds(2), stallTime: .seconds(1), stallBytesPerSecond: 1)
        let start = ContinuousClock.now
        do {
            _ = try await HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/stall"), timeouts: timeouts))
            XCTFail("a stalled response must fail")
        } catch let error as HTTPError {
            XCTAssertTrue(error.isTransient)
            XCTAssertTrue(error.description.hasPrefix("GET \(server.url("/stall")): "), error.description)
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(10))
    }

    func testResponseLargerThanTheLimitFails() async throws {
        let server = try startServer()
        defer { server.stop() }
        do {
            _ = try await HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/bytes/5000"), maxResponseBytes: 1000))
            XCTFail("the body is over the limit")
        } catch let error as HTTPError {
            XCTAssertEqual(error.kind, .responseTooLarge(limit: 1000))
        }
    }

    func testConnectionRefusedIsATransportError() async throws {
        do {
            _ = try await HTTPClient().send(HTTPRequest(method: "GET", url: "http://127.0.0.1:9/"))
            XCTFail("nothing listens on port 9")
        } catch let error as HTTPError {
            guard case .transport = error.kind else { return XCTFail("\(error)") }
        }
    }

    func testMissingFileIsReportedBeforeSending() async throws {
        do {
            _ = try await HTTPClient().send(HTTPRequest(
                method: "PATCH", url: "http://127.0.0.1:9/", body: .file(path: "/nonexistent/file", offset: 0, length: 1)))
            XCTFail("the file does not exist")
        } catch let error as HTTPError {
            XCTAssertEqual(error.kind, .unreadableFile(path: "/nonexistent/file", code: ENOENT))
        }
    }

    func testManyRequestsRunConcurrentlyOnOneClient() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = HTTPClient()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let body = Data("request \(index)".utf8)
                    let response = try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: .data(body)))
                    return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["length"] as? Int == body.count
                        ? response.status : -1
                }
            }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 40))
    }

    func testCancellationStopsATransfer() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = HTTPClient()
        let task = Task { try await client.send(HTTPRequest(method: "GET", url: server.url("/stall"))) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("cancelled")
        } catch let error as HTTPError {
            XCTAssertEqual(error.kind, .cancelled)
        }
    }

    private func sha256(_ data: Data) throws -> String {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("d", data: data)
        let result = try ProcessRunner.run("/usr/bin/sha256sum", [path])
        return String(result.stdout.prefix(64))
    }
}
