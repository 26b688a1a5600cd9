import HTTPClient
import XCTest

/// How objects are cut into parts: at least 5 MiB, at most 10,000 parts, all but the last equal.
final class S3PartSizeTests: XCTestCase {
    private let mebibyte: Int64 = 1 << 20

    func testTwelveMebibytesAreThreeParts() throws {
        let parts = try XCTUnwrap(S3PartSize(objectSize: 12 * mebibyte))
        XCTAssertEqual(parts.partSize, 5 * mebibyte)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts.range(ofPart: 3, objectSize: 12 * mebibyte).offset, 10 * mebibyte)
        XCTAssertEqual(parts.range(ofPart: 3, objectSize: 12 * mebibyte).length, 2 * mebibyte)
    }

    func testSixGibibytesKeepThePreferredSize() throws {
        let size: Int64 = 6 << 30
        let parts = try XCTUnwrap(S3PartSize(objectSize: size))
        XCTAssertEqual(parts.partSize, 5 * mebibyte)
        XCTAssertEqual(parts.count, 1229)  // 6144 MiB / 5 MiB, rounded up
        let larger = try XCTUnwrap(S3PartSize(objectSize: size, preferred: 64 * mebibyte))
        XCTAssertEqual(larger.count, 96)
    }

    func testFiveTebibytesFitInTenThousandParts() throws {
        let size: Int64 = 5 << 40
        let parts = try XCTUnwrap(S3PartSize(objectSize: size))
        // 5 TiB / 10,000 is 524.288 MiB: parts of 525 MiB, 9,987 of them.
        XCTAssertEqual(parts.partSize, 525 * mebibyte)
        XCTAssertEqual(parts.count, 9987)
        XCTAssertLessThanOrEqual(parts.count, S3PartSize.maximumParts)
        let last = parts.range(ofPart: parts.count, objectSize: size)
        XCTAssertEqual(last.offset + last.length, size)
        XCTAssertGreaterThan(last.length, 0)
        XCTAssertLessThanOrEqual(last.length, parts.partSize)
    }

    func testSmallAndImpossibleObjects() throws {
        XCTAssertEqual(S3PartSize(objectSize: 0)?.count, 1)
        XCTAssertEqual(S3PartSize(objectSize: 5 * mebibyte)?.count, 1)
        XCTAssertEqual(S3PartSize(objectSize: 5 * mebibyte + 1)?.count, 2)
        XCTAssertEqual(S3PartSize(objectSize: 12 * mebibyte, preferred: 1 * mebibyte)?.partSize, 5 * mebibyte, "never under 5 MiB")
        XCTAssertNil(S3PartSize(objectSize: (5 << 40) + 1))
    }
}
