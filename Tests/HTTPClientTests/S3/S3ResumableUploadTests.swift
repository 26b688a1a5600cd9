import Foundation
import HTTPClient
import TestSupport
import XCTest

/// Objects written by appends against SeaweedFS (`weed mini`, which checks every signature and
/// refuses parts under 5 MiB): odd sizes, a second instance continuing, a call cut short, an
/// empty upload, the abort. One server for the class.
final class S3ResumableUploadTests: S3ServerTestCase {
    private let mebibyte = 1 << 20
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TemporaryDirectory(prefix: "s3-resumable")
    }

    override func tearDown() {
        folder?.remove()
    }

    /// A writer with its own client and scratch folder: another instance each time.
    private func writer() throws -> S3ResumableWriter {
        let bucket = try XCTUnwrap(S3Bucket(name: S3TestServer.bucket, region: "us-east-1", host: try s3.host, pathStyle: true))
        let client = S3Client(
            bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: HTTPClient(),
            retry: S3Retry(attempts: 2, delay: .milliseconds(10)))
        return S3ResumableWriter(client: client, scratch: folder.path + "/scratch-" + UUID().uuidString, checksums: true)
    }

    /// `count` random bytes in a file of their own.
    private func source(_ count: Int) throws -> (path: String, data: Data) {
        let data = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: count))
        return (try folder.write("source-\(UUID().uuidString)", data: data), data)
    }

    /// The hex MD5 of the file at `path`, by the system's `md5sum`.
    private func md5(_ path: String) throws -> String {
        String(try ProcessRunner.run("/usr/bin/md5sum", [path]).stdout.prefix(32))
    }

    /// Downloads `key` and checks its MD5 against the file at `path`.
    private func assertStored(_ key: String, as path: String, by writer: S3ResumableWriter, file: StaticString = #filePath, line: UInt = #line) async throws {
        let copy = folder.path + "/download-" + UUID().uuidString
        _ = try await writer.client.getFile(key, to: copy, maxBytes: 64 << 20)
        XCTAssertEqual(try md5(copy), try md5(path), "the bytes of \(key)", file: file, line: line)
    }

    /// What S3 holds for the upload of `key` besides the object: its tail objects and multipart uploads.
    private func leftovers(_ key: String, by writer: S3ResumableWriter) async throws -> [String] {
        let tails = try await writer.client.list(prefix: key + ".part").objects.map(\.key)
        let uploads = try await writer.client.multipartUploads(prefix: key).filter { $0.key == key }.map { "upload " + $0.uploadID }
        return tails + uploads
    }

    func testAppendsOfOddSizesMakeTheirBytes() async throws {
        let mebibytes = Int64(mebibyte)
        // Appends, then the parts sent and the ETag's part count once finished (nil: one PUT).
        let cases: [(name: String, appends: [Int], parts: Int, finished: Int?)] = [
            ("one-byte", [1], 0, nil), ("five-less-one", [5 * mebibyte - 1], 0, nil), ("five", [5 * mebibyte], 1, 1),
            ("five-and-one", [5 * mebibyte + 1], 1, 2), ("twelve", [4 * mebibyte, 5 * mebibyte + 3, 3 * mebibyte - 3], 2, 3),
        ]
        for (name, appends, parts, finished) in cases {
            let key = "odd/\(name).bin"
            let (path, data) = try source(appends.reduce(0, +))
            let writer = try writer()
            var state = try S3ResumableUpload(key: key, length: Int64(data.count), maximumSize: 1 << 30)
            XCTAssertEqual(state.partSize, 5 * mebibytes)
            var offset: Int64 = 0
            for length in appends {
                state = try await writer.append(state, from: path, offset: offset, length: Int64(length))
                offset += Int64(length)
                XCTAssertEqual(state.offset, offset, name)
                XCTAssertLessThan(state.tailSize, state.partSize, name)
            }
            XCTAssertEqual(state.parts.count, parts, name)
            XCTAssertEqual(state.parts.map(\.number), Array(0..<parts).map { $0 + 1 }, name)
            let etag = try await writer.finish(state)
            if let finished { XCTAssertTrue(etag.hasSuffix("-\(finished)"), "\(name): \(etag)") } else { XCTAssertFalse(etag.contains("-"), "\(name): \(etag)") }
            try await assertStored(key, as: path, by: writer)
            let left = try await leftovers(key, by: writer)
            XCTAssertEqual(left, [], name)
        }
    }

    func testASecondInstanceContinuesFromTheSavedState() async throws {
        let key = "instances/shared.bin"
        let (path, data) = try source(13 * mebibyte + 7)
        let first = try writer()
        var state = try S3ResumableUpload(key: key, length: nil, maximumSize: 1 << 30, headers: ["Content-Type": "application/x-test"])
        state = try await first.append(state, from: path, offset: 0, length: Int64(3 * mebibyte))
        state = try await first.append(state, from: path, offset: Int64(3 * mebibyte), length: Int64(4 * mebibyte))
        XCTAssertEqual(state.parts.count, 1)
        XCTAssertEqual(state.tailSize, Int64(2 * mebibyte))
        // Saved as JSON by one instance, read by another with its own client and no copy of the tail.
        let saved = try JSONEncoder().encode(state)
        let second = try writer()
        var continued = try JSONDecoder().decode(S3ResumableUpload.self, from: saved)
        XCTAssertEqual(continued, state)
        continued.length = Int64(data.count)
        continued = try await second.append(continued, from: path, offset: continued.offset, length: Int64(data.count) - continued.offset)
        XCTAssertEqual(continued.parts.count, 2)
        XCTAssertEqual(continued.offset, Int64(data.count))
        let etag = try await second.finish(continued)
        XCTAssertTrue(etag.hasSuffix("-3"), etag)
        try await assertStored(key, as: path, by: first)
        let object = try await first.client.head(key)
        XCTAssertEqual(object?.contentType, "application/x-test")
        let left = try await leftovers(key, by: second)
        XCTAssertEqual(left, [])
    }

    func testAnAppendWhoseStateWasNotSavedIsDoneAgain() async throws {
        let key = "crash/again.bin"
        let (path, data) = try source(11 * mebibyte + 5)
        let writer = try writer()
        let empty = try S3ResumableUpload(key: key, length: Int64(data.count), maximumSize: 1 << 30)
        // Cut short after its part and its tail were sent: the state it returned is never saved,
        // and the multipart upload it started is left behind.
        let lost = try await writer.append(empty, from: path, offset: 0, length: Int64(6 * mebibyte))
        XCTAssertNotNil(lost.uploadID)
        var state = try await writer.append(empty, from: path, offset: 0, length: Int64(6 * mebibyte))
        XCTAssertNotEqual(state.uploadID, lost.uploadID)
        XCTAssertEqual(state.parts.map(\.etag), lost.parts.map(\.etag), "the same bytes make the same part")
        // Cut short again, this time while the tail grew; continued by another instance, from the
        // saved state, with fewer bytes than the lost call had.
        _ = try await writer.append(state, from: path, offset: state.offset, length: Int64(2 * mebibyte))
        let other = try self.writer()
        state = try await other.append(state, from: path, offset: state.offset, length: Int64(mebibyte))
        // And once more after a part was sent.
        _ = try await other.append(state, from: path, offset: state.offset, length: Int64(4 * mebibyte))
        state = try await writer.append(state, from: path, offset: state.offset, length: Int64(data.count) - state.offset)
        XCTAssertEqual(state.offset, Int64(data.count))
        let etag = try await writer.finish(state)
        XCTAssertTrue(etag.hasSuffix("-3"), etag)
        try await assertStored(key, as: path, by: other)
        let left = try await leftovers(key, by: writer)
        XCTAssertEqual(left, [], "the lost calls' upload and tails are removed")
    }

    func testTheCopyOfALostTailIsNotTaken() async throws {
        let key = "crash/copy.bin"
        let (lostPath, _) = try source(mebibyte)
        let (path, _) = try source(2 * mebibyte)
        let here = try writer(), there = try writer()
        let empty = try S3ResumableUpload(key: key, length: Int64(2 * mebibyte), maximumSize: 1 << 30)
        // Here, an append whose state was lost leaves a copy of its tail; there, the same range
        // with other bytes is saved. Here goes on from the saved state.
        _ = try await here.append(empty, from: lostPath, offset: 0, length: Int64(mebibyte))
        var state = try await there.append(empty, from: path, offset: 0, length: Int64(mebibyte))
        state = try await here.append(state, from: path, offset: state.offset, length: Int64(mebibyte))
        _ = try await here.finish(state)
        try await assertStored(key, as: path, by: there)
    }

    func testAFinishCutShortIsFinishedAgain() async throws {
        let key = "crash/finish.bin"
        let (path, data) = try source(7 * mebibyte)
        let writer = try writer()
        var state = try S3ResumableUpload(key: key, length: Int64(data.count), maximumSize: 1 << 30)
        state = try await writer.append(state, from: path, offset: 0, length: Int64(data.count))
        let etag = try await writer.finish(state)
        let again = try await writer.finish(state)
        XCTAssertEqual(again, etag)
        try await assertStored(key, as: path, by: writer)
    }

    func testAnEmptyUploadIsAnEmptyObject() async throws {
        let writer = try writer()
        for (key, length) in [("empty/declared.bin", Int64(0)), ("empty/deferred.bin", nil)] {
            let state = try S3ResumableUpload(key: key, length: length, maximumSize: 1 << 30)
            let etag = try await writer.finish(try await writer.append(state, from: "/dev/null", offset: 0, length: 0))
            XCTAssertEqual(etag, "d41d8cd98f00b204e9800998ecf8427e", "the MD5 of no bytes")
            let object = try await writer.client.head(key)
            XCTAssertEqual(object?.size, 0)
        }
    }

    func testAbortLeavesNothing() async throws {
        let key = "aborted/upload.bin"
        let (path, _) = try source(8 * mebibyte)
        let writer = try writer()
        let empty = try S3ResumableUpload(key: key, length: nil, maximumSize: 1 << 30)
        _ = try await writer.append(empty, from: path, offset: 0, length: Int64(6 * mebibyte))  // lost: its upload is left behind
        var state = try await writer.append(empty, from: path, offset: 0, length: Int64(6 * mebibyte))
        state = try await writer.append(state, from: path, offset: state.offset, length: Int64(2 * mebibyte))
        let before = try await leftovers(key, by: writer)
        XCTAssertEqual(before.count, 3, "a tail and two uploads: \(before)")
        await writer.abort(state)
        let after = try await leftovers(key, by: writer)
        XCTAssertEqual(after, [])
        let object = try await writer.client.head(key)
        XCTAssertNil(object)
    }

    func testRefusalsNameTheUploadAndHowToGoOn() async throws {
        let (path, _) = try source(2 * mebibyte)
        let writer = try writer()
        let state = try S3ResumableUpload(key: "refused/short.bin", length: Int64(mebibyte), maximumSize: 1 << 30)
        do {
            _ = try await writer.append(state, from: path, offset: 0, length: Int64(2 * mebibyte))
            XCTFail("an append past the declared length was taken")
        } catch let error as S3Error {
            XCTAssertTrue(error.description.contains("refused/short.bin") && error.description.contains("declared"), error.description)
        }
        do {
            _ = try await writer.finish(try await writer.append(state, from: path, offset: 0, length: 100))
            XCTFail("an upload short of its length was finished")
        } catch let error as S3Error {
            XCTAssertTrue(error.description.contains("append the rest"), error.description)
            XCTAssertFalse(error.description.contains(S3TestServer.secret))
        }
        // A saved state whose tail object is not the one it names (another upload's state, say).
        var wrong = try await writer.append(state, from: path, offset: 0, length: 100)
        wrong.tailSize = 200
        wrong.length = 200
        wrong.tailETag = nil
        do {
            _ = try await writer.finish(wrong)
            XCTFail("a tail shorter than the state says was taken")
        } catch let error as S3Error {
            XCTAssertTrue(error.description.contains("refused/short.bin.part1") && error.description.contains("200"), error.description)
        }
        await writer.abort(state)
    }
}
