import Foundation
import HTTPClient
import XCTest

/// The part size of an object written by appends: 5 MiB at least, never more than 10,000 parts,
/// sized from the maximum upload when the length is not known.
final class S3ResumablePartSizeTests: XCTestCase {
    private let mebibyte: Int64 = 1 << 20

    func testSmallUploadsHaveFiveMebibyteParts() throws {
        for length: Int64 in [0, 1, 5 * mebibyte, 50_000 * mebibyte] {
            XCTAssertEqual(S3ResumableUpload.partSize(length: length, maximumSize: 1 << 40), 5 * mebibyte, "\(length) bytes")
        }
    }

    func testLargeUploadsFitInTenThousandParts() throws {
        // 50 GiB / 10,000 is 5.12 MiB: parts of 6 MiB. 5 TiB / 10,000 is 524.3 MiB: parts of 525 MiB.
        for (length, expected) in [(Int64(50) << 30, 6 * mebibyte), (Int64(5) << 40, 525 * mebibyte)] {
            let size = try XCTUnwrap(S3ResumableUpload.partSize(length: length, maximumSize: 0))
            XCTAssertEqual(size, expected)
            XCTAssertLessThanOrEqual((length + size - 1) / size, S3PartSize.maximumParts)
            let upload = try S3ResumableUpload(key: "large", length: length, maximumSize: 0)
            XCTAssertEqual(upload.capacity, min(size * S3PartSize.maximumParts, S3PartSize.maximumObject))
            XCTAssertGreaterThanOrEqual(upload.capacity, length)
        }
    }

    func testAnUnknownLengthIsSizedForTheMaximum() throws {
        let upload = try S3ResumableUpload(key: "deferred", length: nil, maximumSize: 1 << 40)
        // 1 TiB / 10,000 is 104.9 MiB: parts of 105 MiB, whatever the length turns out to be.
        XCTAssertEqual(upload.partSize, 105 * mebibyte)
        XCTAssertGreaterThanOrEqual(upload.capacity, 1 << 40)
        XCTAssertNil(upload.length)
        XCTAssertEqual(upload.offset, 0)
        XCTAssertEqual(upload.tailKey, "deferred.part1")
    }

    func testMoreThanFiveTebibytesIsRefused() {
        XCTAssertNil(S3ResumableUpload.partSize(length: nil, maximumSize: (5 << 40) + 1))
        XCTAssertThrowsError(try S3ResumableUpload(key: "huge", length: (5 << 40) + 1, maximumSize: 1 << 30)) { error in
            XCTAssertTrue("\(error)".contains("huge") && "\(error)".contains("5 TiB"), "\(error)")
        }
    }

    func testAnAppendPastTenThousandPartsIsRefusedBeforeAnyRequest() async throws {
        // A client that reaches no server: the refusal comes before any request.
        let bucket = try XCTUnwrap(S3Bucket(name: "bucket", region: "us-east-1", host: "http://127.0.0.1:9", pathStyle: true))
        let client = S3Client(bucket: bucket, credentials: S3Credentials(key: "key", secret: "secret"), http: HTTPClient(), retry: S3Retry(attempts: 1))
        let writer = S3ResumableWriter(client: client, scratch: NSTemporaryDirectory() + "/unused-\(UUID().uuidString)")
        var state = try S3ResumableUpload(key: "full", length: nil, maximumSize: 50 * mebibyte)
        state.parts = (1...10_000).map { S3ResumableUpload.Part(number: $0, etag: "\"\($0)\"", size: state.partSize) }
        XCTAssertEqual(state.offset, state.capacity)
        do {
            _ = try await writer.append(state, from: "/dev/zero", offset: 0, length: 1)
            XCTFail("part 10,001 was sent")
        } catch let error as S3Error {
            XCTAssertEqual(error.code, "EntityTooLarge")
            XCTAssertNil(error.status, "no request was made")
        }
    }
}
