@testable import Engine
import XCTest

/// `serve --store`'s address: a bucket, a prefix, an endpoint and a region; never a secret.
final class BucketAddressTests: XCTestCase {
    func testAnAddressGivesTheBucketThePrefixAndTheEndpoint() throws {
        let address = try BucketAddress(parsing: "s3://media-bucket/engine/one?endpoint=http://127.0.0.1:8333&region=eu-west-1")
        XCTAssertEqual(address.bucket.name, "media-bucket")
        XCTAssertEqual(address.bucket.region, "eu-west-1")
        XCTAssertEqual(address.bucket.scheme, "http")
        XCTAssertEqual(address.bucket.host, "127.0.0.1:8333")
        XCTAssertTrue(address.bucket.pathStyle)
        XCTAssertEqual(address.prefix, "engine/one/")
        XCTAssertEqual(try BucketAddress(parsing: "s3://media-bucket").prefix, "")
        XCTAssertEqual(try BucketAddress(parsing: "s3://media-bucket").bucket.region, "us-east-1")
    }

    func testAWrongAddressSaysWhatIsWrong() {
        func refusal(_ text: String) -> String {
            do { _ = try BucketAddress(parsing: text) } catch { return error.message }
            return ""
        }
        XCTAssertTrue(refusal("https://bucket/x").contains("s3://my-bucket/engine"))
        XCTAssertTrue(refusal("s3://KEY:SECRET@bucket/x").contains("AWS_SECRET_ACCESS_KEY"))
        XCTAssertFalse(refusal("s3://KEY:SECRET@bucket/x").contains("SECRET@"), "the secret is never repeated")
        XCTAssertTrue(refusal("s3://bucket?endpoint=ftp://x").contains("http:// or https://"))
        XCTAssertTrue(refusal("s3://bucket?acl=public").contains("unknown setting 'acl'"))
        XCTAssertTrue(refusal("s3://Bad_Bucket").contains("not a bucket name"))
    }
}
