import Foundation
@testable import Wire
import XCTest

/// Header lookup ignores ASCII case, and only ASCII case.
final class HTTPHeadersTests: XCTestCase {
    func testLookupIgnoresCase() {
        let headers = HTTPHeaders([("Upload-Offset", "10"), ("TUS-RESUMABLE", "1.0.0"), ("set-cookie", "a"), ("Set-Cookie", "b")])
        XCTAssertEqual(headers["upload-offset"], "10")
        XCTAssertEqual(headers["Tus-Resumable"], "1.0.0")
        XCTAssertEqual(headers.values("SET-COOKIE"), ["a", "b"])
        XCTAssertNil(headers["Upload-Length"])
    }

    func testOnlyLettersFoldAndNamesMustBeTheSameLength() {
        // '@' and '`' differ from each other by the case bit, as do '[' and '{'; they are not letters.
        XCTAssertFalse(HTTPHeaders.sameName("a@b", "a`b"))
        XCTAssertFalse(HTTPHeaders.sameName("x[", "x{"))
        XCTAssertFalse(HTTPHeaders.sameName("Host", "Hos"))
        XCTAssertFalse(HTTPHeaders.sameName("Å", "å"), "not an HTTP token: compared as bytes")
        XCTAssertTrue(HTTPHeaders.sameName("Content-MD5", "content-md5"))
        // Every ASCII letter and only letters, against the case-insensitive comparison it replaced.
        for a in UInt8(32)..<127 {
            for b in UInt8(32)..<127 {
                let one = String(UnicodeScalar(a)), other = String(UnicodeScalar(b))
                XCTAssertEqual(HTTPHeaders.sameName(one, other), one.lowercased() == other.lowercased(), "\(one) \(other)")
            }
        }
    }
}
