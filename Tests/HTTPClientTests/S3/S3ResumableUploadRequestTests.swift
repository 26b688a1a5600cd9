import Foundation
import HTTPClient
import TestSupport
import XCTest

/// How many S3 requests each call of `S3ResumableWriter` makes, counted by a proxy that logs
/// every request, against moto (fast). One server for the class.
final class S3ResumableUploadRequestTests: S3ServerTestCase {
    override class var serverKind: S3TestServer.Kind { .moto }
    private let mebibyte: Int64 = 1 << 20
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TemporaryDirectory(prefix: "s3-resumable-requests")
    }

    override func tearDown() {
        folder?.remove()
    }

    /// A writer through `host`, with a scratch folder of its own (a copy of no tail).
    private func writer(through host: String) throws -> S3ResumableWriter {
        let bucket = try XCTUnwrap(S3Bucket(name: S3TestServer.bucket, region: "us-east-1", host: host, pathStyle: true))
        let client = S3Client(bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: HTTPClient())
        return S3ResumableWriter(client: client, scratch: folder.path + "/scratch-" + UUID().uuidString)
    }

    /// The requests the proxy forwarded since `seen` of them, as "METHOD what" with the key left out.
    private func requests(after seen: inout Int) throws -> [String] {
        let lines = try s3.proxyLines().filter { $0.hasPrefix("forward ") }
        defer { seen = lines.count }
        return lines.dropFirst(seen).map { line in
            let words = line.split(separator: " ")
            let target = words.count > 2 ? String(words[2]) : ""
            let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map { "?" + $0.prefix(while: { $0 != "=" }) } ?? ""
            let what = target.hasSuffix(".part") || target.range(of: #"\.part[0-9]+(\?|$)"#, options: .regularExpression) != nil ? "tail" : "object"
            return "\(words.count > 1 ? words[1] : "") \(query.isEmpty ? what : query)"
        }
    }

    func testPatchesOfOnePartSendOnePartEach() async throws {
        let host = try s3.faultProxy([])
        let writer = try writer(through: host)
        let path = try folder.write("source.bin", data: Data(count: Int(21 * mebibyte)))
        var state = try S3ResumableUpload(key: "counted/aligned.bin", length: 21 * mebibyte, maximumSize: 1 << 40)
        var seen = 0
        var perCall: [[String]] = []
        for _ in 0..<4 {
            state = try await writer.append(state, from: path, offset: state.offset, length: 5 * mebibyte)
            perCall.append(try requests(after: &seen))
        }
        state = try await writer.append(state, from: path, offset: state.offset, length: mebibyte)
        perCall.append(try requests(after: &seen))
        _ = try await writer.finish(state)
        perCall.append(try requests(after: &seen))
        XCTAssertEqual(perCall[0], ["POST ?uploads", "PUT ?partNumber"])
        XCTAssertEqual(perCall[1], ["PUT ?partNumber"])
        XCTAssertEqual(perCall[3], ["PUT ?partNumber"])
        XCTAssertEqual(perCall[4], ["PUT tail"], "a last PATCH under one part")
        XCTAssertEqual(perCall[5], ["PUT ?partNumber", "POST ?uploadId", "GET ?list-type", "DELETE tail", "GET ?prefix"], "the tail kept here is not read back")
        // 1 GiB in 5 MiB PATCHes: 204 full parts and a tail of 4 MiB.
        let total = perCall[0].count + 203 * perCall[1].count + perCall[4].count + perCall[5].count
        print("S3 requests for 1 GiB in 5 MiB PATCHes, on one instance: \(total)")
        XCTAssertEqual(total, 211)
    }

    func testPatchesAcrossPartsReadTheTailOnlyOnAnotherInstance() async throws {
        let host = try s3.faultProxy([])
        let here = try writer(through: host)
        let patch: Int64 = 5_000_000  // under 5 MiB: every PATCH but the first fills a part and leaves a tail
        let path = try folder.write("source.bin", data: Data(count: Int(5 * patch)))
        var state = try S3ResumableUpload(key: "counted/unaligned.bin", length: nil, maximumSize: 1 << 30)
        var seen = 0
        state = try await here.append(state, from: path, offset: 0, length: patch)
        XCTAssertEqual(try requests(after: &seen), ["PUT tail"])
        state = try await here.append(state, from: path, offset: state.offset, length: patch)
        XCTAssertEqual(try requests(after: &seen), ["POST ?uploads", "PUT ?partNumber", "PUT tail"])
        state = try await here.append(state, from: path, offset: state.offset, length: patch)
        let sameInstance = try requests(after: &seen)
        XCTAssertEqual(sameInstance, ["DELETE tail", "PUT ?partNumber", "PUT tail"])
        state = try await writer(through: host).append(state, from: path, offset: state.offset, length: patch)
        let otherInstance = try requests(after: &seen)
        XCTAssertEqual(otherInstance, ["DELETE tail", "GET tail", "PUT ?partNumber", "PUT tail"])
        // 1 GiB in PATCHes of 5,000,000 bytes: 215 of them.
        let patches = ((Int64(1) << 30) + patch - 1) / patch
        print("S3 requests per PATCH of 5,000,000 bytes: \(sameInstance.count) on the instance that wrote the tail, \(otherInstance.count) on another; 1 GiB (\(patches) PATCHes) takes \(Int64(sameInstance.count) * patches) to \(Int64(otherInstance.count) * patches) and the finish")
        _ = try await here.finish(state)
    }
}
