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

    func testASmallBodyGoesWithoutAskingAndALargeOneAsksFirst() async throws {
        let server = try startServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("body.bin", data: Data(repeating: 7, count: 3 << 20))
        let client = HTTPClient()
        for (length, expect) in [(Int64(200_000), nil), (Int64(1 << 20), nil), (Int64(2 << 20), "100-continue")] as [(Int64, String?)] {
            let response = try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: .file(path: path, offset: 0, length: length)))
            let headers = try XCTUnwrap(try echo(response)["headers"] as? [String: String])
            XCTAssertEqual(headers["expect"], expect, "\(length) bytes: a round trip to ask costs more than sending a small body")
        }
    }

    func testAnOptionLibcurlRefusesStopsTheRequestBeforeItIsSent() async throws {
        // libcurl refuses strings over 8,000,000 bytes: the request is not sent without its URL.
        let url = "http://127.0.0.1:9/" + String(repeating: "a", count: 8_100_000)
        do {
            _ = try await HTTPClient().send(HTTPRequest(method: "GET", url: url))
            XCTFail("sent")
        } catch let error as HTTPError {
            guard case .setup(let option, _) = error.kind else { return XCTFail("\(error.kind)") }
            XCTAssertEqual(option, "CURLOPT_URL")
            XCTAssertTrue(error.message.hasPrefix("not sent: libcurl refused CURLOPT_URL"), error.message)
        }
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

    func testTheRequestsHeadersStayWithItsOriginAcrossRedirects() async throws {
        let server = try startServer()
        defer { server.stop() }
        let port = try XCTUnwrap(URL(string: server.url("/"))?.port)
        let headers = [("X-Api-Key", "k3y"), ("Accept", "image/*")]
        let same = try await HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/redirect"), headers: headers, followsRedirects: true))
        let sameHeaders = try XCTUnwrap(echo(same)["headers"] as? [String: String])
        XCTAssertEqual(sameHeaders["x-api-key"], "k3y")
        let other = "http://localhost:\(port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let moved = try await HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/to/" + other), headers: headers, followsRedirects: true))
        let movedHeaders = try XCTUnwrap(echo(moved)["headers"] as? [String: String])
        XCTAssertNil(movedHeaders["x-api-key"], "another host never sees the key")
        XCTAssertEqual(movedHeaders["accept"], "image/*")
        var chain = "/echo"
        for _ in 0..<6 { chain = "/to/" + (chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        do {
            let loop = try await HTTPClient().send(HTTPRequest(method: "GET", url: server.url(chain), followsRedirects: true))
            XCTFail("six redirects are too many: \(loop.status)")
        } catch let error as HTTPError {
            XCTAssertTrue(error.message.contains("more than 5 redirects"), error.message)
        }
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
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let body = directory.path + "/body"
        let client = HTTPClient()
        let task = Task { try await client.send(HTTPRequest(method: "GET", url: server.url("/stall"), responseFile: body)) }
        // Cancelled mid-transfer: once the first byte of the stalled body is in.
        let transferring = await eventually { (try? FileManager.default.attributesOfItem(atPath: body)[.size] as? Int).map { $0 >= 1 } ?? false }
        XCTAssertTrue(transferring, "the stalled body's first byte arrives")
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

/// Bodies written to files, the protocols spoken and the addresses a policy refuses.
final class HTTPClientGuardTests: XCTestCase {
    private func startServer() throws -> ServerProcess {
        try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/HTTPClientTests/Fixtures/http_server.py"])
    }

    func testAResponseBodyGoesToItsFileAndOnlyTheFinalResponsesBody() async throws {
        let server = try startServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/body"
        let response = try await HTTPClient().send(HTTPRequest(
            method: "GET", url: server.url("/to/%2Fbytes%2F70000"), followsRedirects: true, responseFile: path))
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.body.isEmpty, "the body is in the file, not in memory")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(repeating: UInt8(ascii: "x"), count: 70_000))
    }

    func testBodiesOverTheLimitFailAnnouncedOrNot() async throws {
        let server = try startServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for path in ["/bytes/5000", "/stream/5000"] {
            do {
                _ = try await HTTPClient().send(HTTPRequest(
                    method: "GET", url: server.url(path), maxResponseBytes: 4000, responseFile: directory.path + "/big"))
                XCTFail("\(path): a body over the limit is refused")
            } catch let error as HTTPError {
                XCTAssertEqual(error.kind, .responseTooLarge(limit: 4000), path)
            }
        }
    }

    func testOnlyHTTPIsSpokenEvenAfterARedirect() async throws {
        let server = try startServer()
        defer { server.stop() }
        for url in ["file:///etc/passwd", server.url("/to/file%3A%2F%2F%2Fetc%2Fpasswd"), server.url("/to/gopher%3A%2F%2F127.0.0.1%2F")] {
            do {
                let response = try await HTTPClient().send(HTTPRequest(method: "GET", url: url, followsRedirects: true))
                XCTFail("\(url) answered \(response.status): \(response.bodyText())")
            } catch let error as HTTPError {
                guard case .transport(let code, _) = error.kind else { return XCTFail("\(url): \(error)") }
                XCTAssertEqual(code, 1, "unsupported protocol: \(url)")
            }
        }
    }

    func testAPolicyRefusesLoopbackUnlessAllowedAndChecksEveryRedirect() async throws {
        let server = try startServer()
        defer { server.stop() }
        let port = try XCTUnwrap(URL(string: server.url("/"))?.port)
        for host in ["127.0.0.1", "localhost", "127.1.2.3", "0.0.0.0"] {
            do {
                _ = try await HTTPClient().send(HTTPRequest(method: "GET", url: "http://\(host):\(port)/echo", addressPolicy: AddressPolicy()))
                XCTFail("\(host) is refused")
            } catch let error as HTTPError {
                guard case .addressRefused(let reason) = error.kind else { return XCTFail("\(host): \(error)") }
                XCTAssertTrue(reason.contains("loopback") || reason.contains("unspecified"), reason)
            }
        }
        let allowed = try await HTTPClient().send(HTTPRequest(
            method: "GET", url: server.url("/to/%2Fecho"), followsRedirects: true, addressPolicy: AddressPolicy(allowsLoopback: true)))
        XCTAssertEqual(allowed.status, 200)
        // The first connection is allowed; the redirect's target is checked again.
        do {
            let target = "http://[::ffff:169.254.169.254]:\(port)/".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            _ = try await HTTPClient().send(HTTPRequest(
                method: "GET", url: server.url("/to/" + target), timeouts: HTTPTimeouts(connect: .seconds(2)),
                followsRedirects: true, addressPolicy: AddressPolicy(allowsLoopback: true)))
            XCTFail("a redirect to the metadata address is refused")
        } catch let error as HTTPError {
            XCTAssertEqual(error.kind, .addressRefused(reason: "::ffff:169.254.169.254 is a link-local address (cloud metadata services live there)"))
        }
    }

    func testAddressKinds() throws {
        let expected: [(String, String)] = [
            ("127.0.0.1", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.1", "loopback"), ("0.0.0.0", "restricted"), ("::", "restricted"),
            ("10.1.2.3", "restricted"), ("172.16.0.1", "restricted"), ("172.32.0.1", "public"), ("192.168.1.1", "restricted"),
            ("169.254.169.254", "restricted"), ("100.64.0.1", "restricted"), ("224.0.0.1", "restricted"), ("255.255.255.255", "restricted"),
            ("fd00::1", "restricted"), ("fe80::1", "restricted"), ("ff02::1", "restricted"), ("::ffff:10.0.0.1", "restricted"),
            ("64:ff9b::a00:1", "restricted"),
            ("fec0::1", "restricted"), ("::ffff:0:7f00:1", "loopback"), ("::ffff:0:a00:1", "restricted"), ("::ffff:0:808:808", "public"),
            ("2001:db8::1", "restricted"), ("192.0.2.1", "restricted"), ("203.0.113.9", "restricted"),
            ("64:ff9b::7f00:1", "restricted"), ("2002:7f00:1::", "restricted"), ("2001:0:4136:e378::1", "restricted"), ("64:ff9b:1::1", "restricted"), ("100::1", "restricted"), ("2002:a00:1::", "restricted"), ("2002:808:808::", "public"),
            ("8.8.8.8", "public"), ("2001:4860:4860::8888", "public"), ("93.184.216.34", "public"),
        ]
        for (text, kind) in expected {
            let address = try XCTUnwrap(NetworkAddress(text), text)
            let found: String = switch address.kind {
            case .loopback: "loopback"
            case .restricted: "restricted"
            case .public: "public"
            }
            XCTAssertEqual(found, kind, text)
        }
        XCTAssertEqual(NetworkAddress("::ffff:127.0.0.1")?.description, "::ffff:127.0.0.1")
        XCTAssertNil(NetworkAddress("example.com"))
        XCTAssertNil(AddressPolicy(allowsLoopback: true).refusal(for: try XCTUnwrap(NetworkAddress("::1"))))
    }
}
