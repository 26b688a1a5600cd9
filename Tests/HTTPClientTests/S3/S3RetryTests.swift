import Foundation
import HTTPClient
import TestSupport
import XCTest

/// Retries and aborts of multipart uploads, against moto (fast) behind a proxy that answers
/// chosen requests with S3 errors: one server for the class.
final class S3RetryTests: S3ServerTestCase {
    override class var serverKind: S3TestServer.Kind { .moto }
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TemporaryDirectory(prefix: "s3-retry")
    }

    override func tearDown() {
        folder?.remove()
    }

    private func client(through host: String) throws -> S3Client {
        let bucket = try XCTUnwrap(S3Bucket(name: S3TestServer.bucket, region: "us-east-1", host: host, pathStyle: true))
        return S3Client(
            bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: HTTPClient(),
            retry: S3Retry(attempts: 3, delay: .milliseconds(10), maximumDelay: .milliseconds(50)))
    }

    private func twelveMebibytes() throws -> (String, Data) {
        let data = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 12 << 20))
        return (try folder.write("twelve.bin", data: data), data)
    }

    func testSlowDownAndAServerErrorMidUploadAreRetried() async throws {
        let server = try s3
        let host = try server.faultProxy(["PUT *partNumber=2&*|1|503|SlowDown", "PUT *partNumber=3&*|1|500|InternalError"])
        let (path, data) = try twelveMebibytes()
        let etag = try await client(through: host).putFile(path, size: Int64(data.count), key: "retried.bin")
        XCTAssertTrue(etag.hasSuffix("-3"), etag)
        let lines = server.proxyLines()
        XCTAssertEqual(lines.filter { $0.hasPrefix("fault") }.count, 2, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.filter { $0.hasPrefix("forward PUT") }.count, 3, "each part stored once")
        let direct = try client(through: server.host)
        let copy = folder.path + "/copy.bin"
        _ = try await direct.getFile("retried.bin", to: copy, maxBytes: 64 << 20)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), data)
    }

    func testAPartThatKeepsFailingAbortsTheUpload() async throws {
        let server = try s3
        let host = try server.faultProxy(["PUT *partNumber=2&*|*|503|SlowDown"])
        let (path, data) = try twelveMebibytes()
        do {
            try await client(through: host).putFile(path, size: Int64(data.count), key: "failed.bin")
            XCTFail("the upload succeeded")
        } catch let error as S3Error {
            XCTAssertEqual(error.status, 503)
            XCTAssertEqual(error.code, "SlowDown")
            XCTAssertEqual(error.attempts, 3)
            XCTAssertTrue(error.description.contains("part 2 of 3"), error.description)
        }
        let lines = server.proxyLines()
        XCTAssertEqual(lines.filter { $0.hasPrefix("fault 503 PUT") }.count, 3, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("forward DELETE") && $0.contains("uploadId=") }, "the upload was aborted: \(lines)")
        let missing = try await client(through: server.host).head("failed.bin")
        XCTAssertNil(missing)
    }

    func testStoringIntoAMissingBucketIsNamed() async throws {
        let server = try s3
        let bucket = try XCTUnwrap(S3Bucket(name: "no-such-bucket", region: "us-east-1", host: server.host, pathStyle: true))
        let client = S3Client(bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: HTTPClient())
        let path = try folder.write("small.bin", "small")
        do {
            try await client.putFile(path, size: 5, key: "a.bin")
            XCTFail("stored into a missing bucket")
        } catch let error as S3Error {
            XCTAssertEqual(error.status, 404)
            XCTAssertEqual(error.code, "NoSuchBucket")
            XCTAssertEqual(error.attempts, 1)
            XCTAssertTrue(error.description.contains("no-such-bucket"), error.description)
        }
    }

    func testARefusalIsNotRetried() async throws {
        let server = try s3
        let host = try server.faultProxy(["PUT *|*|403|AccessDenied"])
        let (path, _) = try twelveMebibytes()
        do {
            try await client(through: host).putFile(path, size: 1000, key: "denied.bin")
            XCTFail("stored")
        } catch let error as S3Error {
            XCTAssertEqual(error.code, "AccessDenied")
            XCTAssertEqual(error.attempts, 1)
        }
    }
}
