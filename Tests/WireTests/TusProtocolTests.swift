import Foundation
import Wire
import XCTest

final class TusProtocolTests: XCTestCase {
    func testMetadataRoundTrip() {
        let metadata = ["filename": "café.jpg", "filetype": "image/jpeg", "is_confidential": ""]
        let header = TusProtocol.encodeMetadata(metadata)
        XCTAssertEqual(header, "filename Y2Fmw6kuanBn,filetype aW1hZ2UvanBlZw==,is_confidential")
        XCTAssertEqual(TusProtocol.decodeMetadata(header), metadata)
    }

    func testMetadataKeys() {
        XCTAssertTrue(TusProtocol.isValidMetadataKey("filename"))
        for bad in ["", "a b", "a,b", "ключ"] { XCTAssertFalse(TusProtocol.isValidMetadataKey(bad), bad) }
    }

    func testLocationIsResolvedAgainstTheEndpoint() {
        let endpoint = "http://127.0.0.1:1080/files/"
        XCTAssertEqual(TusProtocol.resolve(location: "/files/abc", against: endpoint), "http://127.0.0.1:1080/files/abc")
        XCTAssertEqual(TusProtocol.resolve(location: "abc", against: endpoint), "http://127.0.0.1:1080/files/abc")
        XCTAssertEqual(TusProtocol.resolve(location: "https://cdn.example/u/1", against: endpoint), "https://cdn.example/u/1")
    }

    func testCapabilitiesChooseTheFastestCommonChecksum() {
        let headers = HTTPHeaders([
            ("Tus-Extension", "creation,creation-with-upload,checksum"), ("tus-checksum-algorithm", "md5,SHA1,sha256"),
            ("Tus-Max-Size", "1073741824"),
        ])
        let capabilities = TusCapabilities(headers: headers)
        XCTAssertTrue(capabilities.supportsCreationWithUpload)
        XCTAssertEqual(capabilities.checksumAlgorithm, .sha256)
        XCTAssertEqual(capabilities.maxSize, 1 << 30)
        let withCRC = HTTPHeaders([("Tus-Extension", "checksum"), ("Tus-Checksum-Algorithm", "sha1,sha256,crc32")])
        XCTAssertEqual(TusCapabilities(headers: withCRC).checksumAlgorithm, .crc32, "CRC-32 where offered: it costs neither end a core")
        XCTAssertNil(TusCapabilities(headers: HTTPHeaders([("Tus-Checksum-Algorithm", "sha1")])).checksumAlgorithm,
                     "algorithms without the checksum extension are not used")
    }

    func testHTTPDates() {
        let date = TusProtocol.parseHTTPDate("Mon, 30 Nov 2026 16:19:47 GMT")
        XCTAssertEqual(date?.timeIntervalSince1970, 1_796_055_587)
        XCTAssertNil(TusProtocol.parseHTTPDate("tomorrow"))
    }

    func testChecksumHeaderOfAFileRange() throws {
        let path = NSTemporaryDirectory() + "/checksum-\(UUID().uuidString)"
        try Data("xxabcxx".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(try ChecksumAlgorithm.sha1.headerValue(path: path, offset: 2, length: 3), "sha1 qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
        XCTAssertEqual(try ChecksumAlgorithm.md5.headerValue(path: path, offset: 2, length: 3), "md5 kAFQmDzST7DWlj99KOF/cg==")
    }
}
