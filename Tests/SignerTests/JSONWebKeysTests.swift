import Basics
import Foundation
@testable import Signer
import XCTest

/// Which keys of a JWKS the signer takes.
final class JSONWebKeysTests: XCTestCase {
    private func rsa(bytes: Int, kid: String) -> JSONValue {
        let modulus = Data([0xC1] + [UInt8](repeating: 0x5A, count: bytes - 1))
        return .object(["kty": .string("RSA"), "kid": .string(kid), "n": .string(Base64URL.encode(modulus)), "e": .string("AQAB")])
    }

    func testRSAKeysUnder2048BitsAndKeysForEncryptionAreSkipped() throws {
        var encryption = rsa(bytes: 256, kid: "enc")
        if case .object(var fields) = encryption { fields["use"] = .string("enc"); encryption = .object(fields) }
        let keys = try JSONWebKeys(json: .object(["keys": .array([rsa(bytes: 128, kid: "weak"), rsa(bytes: 256, kid: "strong"), encryption])]))
        XCTAssertEqual(keys.entries.map(\.id), ["strong"])
        XCTAssertEqual(keys.weakKeyIDs, ["weak"], "named, so a token using it is told why")
        XCTAssertEqual(JSONWebKeys.bits(of: Data([0x00, 0x01, 0xFF])), 9, "leading zero bytes and bits do not count")
    }

    func testAJWKSWithTooManyKeysIsRefusedNotCut() {
        let many = JSONValue.object(["keys": .array((0...JSONWebKeys.maxKeys).map { rsa(bytes: 256, kid: "k\($0)") })])
        XCTAssertThrowsError(try JSONWebKeys(json: many)) { error in
            XCTAssertTrue((error as? JWKSError)?.reason.contains("at most 100") == true, "\(error)")
        }
    }

    func testBase64URLHasOneSpelling() {
        XCTAssertEqual(Base64URL.decode("AQAB"), Data([1, 0, 1]))
        XCTAssertEqual(Base64URL.decode("-_8"), Data([0xFB, 0xFF]))
        for bad in ["AQAB=", "AQ==", "+/8", "AQ AB", "A", "AR", "-_9"] {
            XCTAssertNil(Base64URL.decode(Substring(bad)), bad)
        }
    }
}
