import Foundation
import HTTPClient
import XCTest

/// Pre-signed URLs against AWS's published example, key encoding and bucket addressing.
final class S3SigningTests: XCTestCase {
    func testPresignedURLMatchesAWSExample() throws {
        // "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
        let bucket = try XCTUnwrap(S3Bucket(name: "examplebucket", region: "us-east-1", host: "s3.amazonaws.com"))
        let credentials = S3Credentials(key: "AKIAIOSFODNN7EXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let url = S3Presigner(bucket: bucket, credentials: credentials).url(key: "test.txt", expires: 86400, now: Date(timeIntervalSince1970: 1_369_353_600))
        XCTAssertEqual(
            url,
            "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
                + "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        XCTAssertFalse(url.contains("wJalrXUtnFEMI"))
    }

    func testKeysAreEncodedAsSignatureV4Wants() {
        XCTAssertEqual(S3Encoding.path("a b/ü+c~d.e"), "a%20b/%C3%BC%2Bc~d.e")
        XCTAssertEqual(S3Encoding.query("a/b=c"), "a%2Fb%3Dc")
        XCTAssertEqual(S3Encoding.canonicalQuery([("prefix", "x y"), ("list-type", "2"), ("continuation-token", "t/1")]), "continuation-token=t%2F1&list-type=2&prefix=x%20y")
    }

    func testBucketAddressing() throws {
        let aws = try XCTUnwrap(S3Bucket(name: "site", region: "eu-west-1"))
        XCTAssertEqual(aws.url(key: "a/b.jpg"), "https://site.s3.eu-west-1.amazonaws.com/a/b.jpg")
        XCTAssertEqual(aws.publicPrefix, "https://site.s3.eu-west-1.amazonaws.com/")
        let global = try XCTUnwrap(S3Bucket(name: "site", region: "eu-west-1", host: "s3.amazonaws.com"))
        XCTAssertEqual(global.requestHost, "site.s3.eu-west-1.amazonaws.com")
        let local = try XCTUnwrap(S3Bucket(name: "site", region: "us-east-1", host: "http://127.0.0.1:9000/", pathStyle: true))
        XCTAssertEqual(local.url(key: "a b.jpg", query: "uploads="), "http://127.0.0.1:9000/site/a%20b.jpg?uploads=")
        XCTAssertEqual(local.publicPrefix, "http://127.0.0.1:9000/site/")
        XCTAssertNil(S3Bucket(name: "Bad_Bucket", region: "us-east-1"))
        XCTAssertNil(S3Bucket(name: "site", region: "us-east-1", host: "ftp://example.com"))
        XCTAssertNil(S3Bucket(name: "site", region: "us-east-1", host: "evil.com/path?x"))
    }

    func testCredentialsNeverPrintTheirSecret() {
        let credentials = S3Credentials(key: "AKIA", secret: "very-secret", sessionToken: "token-secret")
        for text in [credentials.description, String(reflecting: credentials), "\(credentials)", AWSSigning(region: "r", credentials: credentials).description] {
            XCTAssertFalse(text.contains("very-secret"), text)
            XCTAssertFalse(text.contains("token-secret"), text)
        }
    }
}
