import Basics
import XCTest

final class ByteSizeTests: XCTestCase {
    func testValidSizes() {
        let cases: [(String, Int64)] = [
            ("0", 0),
            ("500", 500),
            ("7B", 7),
            ("20KB", 20_000),
            ("20 KB", 20_000),
            ("2GB", 2_000_000_000),
            ("3TB", 3_000_000_000_000),
            ("1KiB", 1_024),
            ("500MiB", 524_288_000),
            ("1 GiB", 1_073_741_824),
            ("1 TiB", 1_099_511_627_776),
            ("8388607TiB", 9_223_370_937_343_148_032),
        ]
        for (text, bytes) in cases {
            XCTAssertEqual(ByteSize(parsing: text)?.bytes, bytes, "'\(text)'")
        }
    }

    func testInvalidSizes() {
        let cases = [
            "", "GB", "1.5GB", "-1", "+5", "10gb", "10Kb", "1 000", "5  GB", " 5", "5GBs", "KB5",
            "99999999999999999999", "9000000TiB", "8388608TiB",
        ]
        for text in cases {
            XCTAssertNil(ByteSize(parsing: text), "'\(text)' should not parse")
        }
    }

    func testDescription() {
        let cases: [(Int64, String)] = [
            (0, "0 B"),
            (812, "812 B"),
            (999, "999 B"),
            (1_000, "1 KB"),
            (1_536, "1.5 KB"),
            (48_200, "48.2 KB"),
            (524_288_000, "524.3 MB"),
            (1_500_000_000, "1.5 GB"),
            (2_000_000_000, "2 GB"),
            (3_000_000_000_000, "3 TB"),
        ]
        for (bytes, text) in cases {
            XCTAssertEqual(ByteSize(bytes: bytes).description, text, "\(bytes)")
        }
    }

    func testOrdering() {
        XCTAssertLessThan(ByteSize(bytes: 999), ByteSize(bytes: 1_000))
        XCTAssertEqual(ByteSize(parsing: "1KB"), ByteSize(bytes: 1_000))
        XCTAssertGreaterThan(ByteSize(bytes: 2_000_000_000), ByteSize(bytes: 1_073_741_824))
    }
}
