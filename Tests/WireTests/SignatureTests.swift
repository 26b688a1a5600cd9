import Basics
import Foundation
import Wire
import XCTest

final class SignatureTests: XCTestCase {
    /// Vectors from the official Node SDK's tests.
    func testKnownVectors() {
        XCTAssertEqual(
            Signature.sign("foo", secret: "13123123123"),
            "sha384:8b90663d4b7d14ac7d647c74cb53c529198dee4689d0f8faae44f0df1c2a157acce5cb8c55a375218bc331897cf92e9d")
        XCTAssertEqual(
            Signature.sign(#"{"auth":{"key":"foo_key","expires":"2021-01-06T21:11:07.883Z"}}"#, secret: "foo_secret"),
            "sha384:f146533532844d4f4e34221288be08e14a2779eeb802a35afa6a193762f58da95d2423a825aa4cb4c7420e25f75a5c90")
    }

    func testNonASCIIParamsAreSignedAsUTF8Bytes() {
        // Checked with Python: hmac.new(b"s", '{"fields":{"title":"Café 東京 🎉"}}'.encode(), "sha384")
        let params = #"{"fields":{"title":"Café 東京 🎉"}}"#
        XCTAssertEqual(
            Signature.sign(params, secret: "s"),
            "sha384:404ce931073f747d2cc7de2f9adc0828a5a2db258c8379209cb01a3f0ab92dc066b61e7d310b8dec5feea5a61bcee630")
        XCTAssertEqual(Signature.sign(params, secret: "s").count, 103)
    }

    func testWellFormedness() {
        XCTAssertTrue(Signature.isWellFormed("sha384:" + String(repeating: "a", count: 96)))
        for bad in ["", "sha384:", "sha384:" + String(repeating: "A", count: 96), "sha1:" + String(repeating: "a", count: 96),
                    "sha384:" + String(repeating: "a", count: 95), " sha384:" + String(repeating: "a", count: 96)] {
            XCTAssertFalse(Signature.isWellFormed(bad), bad)
        }
    }

    func testConstantTimeEquals() {
        XCTAssertTrue(Signature.constantTimeEquals("sha384:ab", "sha384:ab"))
        XCTAssertFalse(Signature.constantTimeEquals("sha384:ab", "sha384:ac"))
        XCTAssertFalse(Signature.constantTimeEquals("sha384:ab", "sha384:abc"))
    }

    func testAuthIsFilledAndExpiresIsFixedFormatUTC() throws {
        let now = Date(timeIntervalSince1970: 1_609_966_267.883)
        let params = AuthParams.prepare(.object(["steps": .object([:])]), key: "k", lifetime: .seconds(900), now: now)
        XCTAssertEqual(params["auth"]?["key"], .string("k"))
        XCTAssertEqual(params["auth"]?["expires"], .string("2021-01-06T21:06:07.883Z"))
        let nonce = try XCTUnwrap(params["auth"]?["nonce"]?.stringValue)
        XCTAssertEqual(nonce.count, 32)
        XCTAssertNotEqual(AuthParams.nonce(), AuthParams.nonce())
        XCTAssertEqual(AuthParams.parseExpires("2021-01-06T21:06:07.883Z")?.timeIntervalSince1970 ?? 0, 1_609_967_167.883, accuracy: 0.001)
        XCTAssertEqual(AuthParams.parseExpires("2021/01/06 21:06:07+00:00")?.timeIntervalSince1970, 1_609_967_167)
        XCTAssertNil(AuthParams.parseExpires("next week"))
        // What expires(_:) writes reads back to the millisecond, for any date.
        for seconds in [0.0, 951_782_400.5, 1_796_000_000.123, 4_102_444_799.999] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(AuthParams.parseExpires(AuthParams.expires(date))?.timeIntervalSince1970 ?? -1, seconds, accuracy: 0.001)
        }
        XCTAssertNil(AuthParams.parseExpires("2021-13-06T21:06:07.883Z"))
    }
}
