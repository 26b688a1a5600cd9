import Foundation
import HTTPClient
import TestSupport
import XCTest

/// The S3 client against SeaweedFS (`weed mini`), which checks every signature: one server for
/// the class.
final class S3ClientTests: S3ServerTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TemporaryDirectory(prefix: "s3-client")
    }

    override func tearDown() {
        folder?.remove()
    }

    private func client(secret: String = S3TestServer.secret, bucket name: String = S3TestServer.bucket) throws -> S3Client {
        let server = try s3
        let bucket = try XCTUnwrap(S3Bucket(name: name, region: "us-east-1", host: server.host, pathStyle: true))
        return S3Client(bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: secret), http: HTTPClient(), retry: S3Retry(attempts: 2, delay: .milliseconds(10)))
    }

    private func file(_ name: String, bytes count: Int) throws -> (path: String, data: Data) {
        let data = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: count))
        return (try folder.write(name, data: data), data)
    }

    func testPutHeadGetAndListAreSigned() async throws {
        let client = try client()
        let (path, data) = try file("small.bin", bytes: 3000)
        let key = "signed/ä b+c.bin"
        try await client.putFile(path, size: Int64(data.count), key: key, headers: [("Content-Type", "application/x-test"), ("x-amz-meta-origin", "test")])
        let object = try await client.head(key)
        XCTAssertEqual(object?.size, 3000)
        XCTAssertEqual(object?.contentType, "application/x-test")
        let copy = folder.path + "/copy.bin"
        _ = try await client.getFile(key, to: copy, maxBytes: 1 << 20)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), data)
        let listing = try await client.list(prefix: "signed/")
        XCTAssertEqual(listing.objects.map(\.key), [key])
        let missing = try await client.head("signed/none")
        XCTAssertNil(missing)
    }

    func testTwelveMebibytesGoInThreeParts() async throws {
        let client = try client()
        let (path, data) = try file("large.bin", bytes: 12 << 20)
        let etag = try await client.putFile(path, size: Int64(data.count), key: "large/twelve.bin", checksums: true)
        // A multipart object's ETag ends in the number of its parts.
        XCTAssertTrue(etag.hasSuffix("-3"), etag)
        let copy = folder.path + "/copy.bin"
        _ = try await client.getFile("large/twelve.bin", to: copy, maxBytes: 64 << 20)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), data)
    }

    func testAWrongSecretIsRefusedWithoutShowingIt() async throws {
        let wrong = "wrong-secret-abcdef"
        let client = try client(secret: wrong)
        let (path, data) = try file("small.bin", bytes: 100)
        do {
            try await client.putFile(path, size: Int64(data.count), key: "refused.bin")
            XCTFail("a wrong secret was accepted")
        } catch let error as S3Error {
            XCTAssertEqual(error.status, 403)
            XCTAssertEqual(error.code, "SignatureDoesNotMatch")
            XCTAssertEqual(error.attempts, 1, "a refusal is not retried")
            XCTAssertFalse(error.description.contains(wrong))
            XCTAssertFalse(error.description.contains(S3TestServer.secret))
            XCTAssertTrue(error.description.contains("refused.bin"), error.description)
        }
    }

    func testAMissingBucketIsNamed() async throws {
        let client = try client(bucket: "no-such-bucket")
        do {
            _ = try await client.list(prefix: "")
            XCTFail("listed a missing bucket")
        } catch let error as S3Error {
            XCTAssertEqual(error.status, 404)
            XCTAssertEqual(error.code, "NoSuchBucket")
            XCTAssertTrue(error.description.contains("no-such-bucket"), error.description)
        }
    }

    func testPresignedURLsWorkAndExpire() async throws {
        let client = try client()
        let (path, data) = try file("shared.txt", bytes: 500)
        try await client.putFile(path, size: 500, key: "shared/file.txt")
        let presigner = S3Presigner(bucket: client.bucket, credentials: client.credentials)
        let url = presigner.url(key: "shared/file.txt", expires: 600, now: Date())
        let response = try await HTTPClient().send(HTTPRequest(method: "GET", url: url))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, data)
        // Signed an hour ago for a minute: expired.
        let old = presigner.url(key: "shared/file.txt", expires: 60, now: Date().addingTimeInterval(-3600))
        let expired = try await HTTPClient().send(HTTPRequest(method: "GET", url: old))
        XCTAssertEqual(expired.status, 403)
        // Another key under the same signature: refused.
        let forged = url.replacingOccurrences(of: "shared/file.txt", with: "shared/other.txt")
        let refused = try await HTTPClient().send(HTTPRequest(method: "GET", url: forged))
        XCTAssertEqual(refused.status, 403)
    }
}
