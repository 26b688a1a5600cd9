import Crypto
import Foundation
import TestSupport
import XCTest

/// Digests, keyed hashes, random ids and JWS signatures, checked against known vectors and the
/// openssl command.
final class CryptoTests: XCTestCase {
    func testDigestsMatchKnownVectors() throws {
        let cases: [(DigestAlgorithm, String)] = [
            (.crc32, "352441c2"),
            (.md5, "900150983cd24fb0d6963f7d28e17f72"),
            (.sha1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (.sha384, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        ]
        let directory = try TemporaryDirectory(prefix: "crypto")
        defer { directory.remove() }
        let path = try directory.write("abc", "xxabcyy")
        var buffer = [UInt8](repeating: 0, count: 2)
        for (algorithm, expected) in cases {
            let digest = StreamingDigest(algorithm)
            Array("ab".utf8).withUnsafeBytes { digest.update($0) }
            Array("c".utf8).withUnsafeBytes { digest.update($0) }
            XCTAssertNil(digest.failure)
            XCTAssertEqual(Hex.encode(try XCTUnwrap(digest.finish())), expected, algorithm.rawValue)
            let range = try StreamingDigest.file(path, algorithm: algorithm, offset: 2, length: 3, buffer: &buffer)
            XCTAssertEqual(Hex.encode(range.digest), expected, "a file range, read in small blocks")
            XCTAssertEqual(range.size, 3)
        }
        XCTAssertEqual(SHA256.hex("abc"), cases[3].1)
        XCTAssertThrowsError(try StreamingDigest.file(path, algorithm: .sha256, offset: 5, length: 10, buffer: &buffer), "the file ends before the range")
        XCTAssertThrowsError(try StreamingDigest.file(directory.path + "/missing", algorithm: .sha256, buffer: &buffer))
    }

    func testKeyedHashAndComparison() {
        // RFC 4231 test case 2.
        XCTAssertEqual(Hex.encode(KeyedHash.sha384("what do ya want for nothing?", key: "Jefe")),
                       "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649")
        XCTAssertTrue(KeyedHash.constantTimeEquals("abc", "abc"))
        XCTAssertFalse(KeyedHash.constantTimeEquals("abc", "abd"))
        XCTAssertFalse(KeyedHash.constantTimeEquals("abc", "abcd"))
    }

    func testRandomIDsAreHexAndDistinct() {
        let ids = (0..<1000).map { _ in RandomID.hex32() }
        XCTAssertEqual(Set(ids).count, 1000)
        XCTAssertTrue(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }

    func testJWSSignaturesFromOpenSSLVerify() throws {
        let directory = try TemporaryDirectory(prefix: "jws")
        defer { directory.remove() }
        let message = Array("header.payload".utf8)
        let messagePath = try directory.write("message", data: Data(message))
        for (name, arguments) in [("rsa", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]), ("ec", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])] {
            let key = directory.path + "/\(name).pem"
            XCTAssertEqual(try ProcessRunner.run("/usr/bin/openssl", ["genpkey"] + arguments + ["-out", key]).status, 0)
            XCTAssertEqual(try ProcessRunner.run("/usr/bin/openssl", ["dgst", "-sha256", "-sign", key, "-out", directory.path + "/\(name).sig", messagePath]).status, 0)
        }
        let rsaSignature = Array(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/rsa.sig")))
        let (modulus, exponent) = try rsaPublicNumbers(directory.path + "/rsa.pem")
        XCTAssertTrue(JWSVerification.rs256(message: message, signature: rsaSignature, modulus: modulus, exponent: exponent))
        XCTAssertFalse(JWSVerification.rs256(message: message + [0], signature: rsaSignature, modulus: modulus, exponent: exponent))
        XCTAssertFalse(JWSVerification.rs256(message: message, signature: rsaSignature, modulus: [], exponent: exponent))

        let der = Array(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/ec.sig")))
        let raw = try rawECDSA(der)
        let (x, y) = try ecPublicPoint(directory.path + "/ec.pem")
        XCTAssertTrue(JWSVerification.es256(message: message, signature: raw, x: x, y: y))
        XCTAssertFalse(JWSVerification.es256(message: Array("other".utf8), signature: raw, x: x, y: y))
        XCTAssertFalse(JWSVerification.es256(message: message, signature: Array(raw.prefix(63)), x: x, y: y))
    }

    /// The modulus and exponent of an RSA key, from `openssl rsa -text`.
    private func rsaPublicNumbers(_ key: String) throws -> ([UInt8], [UInt8]) {
        let text = try ProcessRunner.run("/usr/bin/openssl", ["rsa", "-in", key, "-noout", "-modulus"]).stdout
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        return (bytes(hex), [1, 0, 1])
    }

    /// x and y of a P-256 key, from its uncompressed public point.
    private func ecPublicPoint(_ key: String) throws -> ([UInt8], [UInt8]) {
        let text = try ProcessRunner.run("/usr/bin/openssl", ["ec", "-in", key, "-noout", "-text"]).stdout
        let lines = text.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("pub:") })
        let hex = lines[(start + 1)...].prefix { $0.hasPrefix(" ") }.joined().filter(\.isHexDigit)
        let point = bytes(hex)
        XCTAssertEqual(point.first, 4)
        return (Array(point[1..<33]), Array(point[33..<65]))
    }

    /// A DER ECDSA signature as JWS's 64-byte r || s.
    private func rawECDSA(_ der: [UInt8]) throws -> [UInt8] {
        var index = 2
        func integer() -> [UInt8] {
            let length = Int(der[index + 1])
            let value = Array(der[(index + 2)..<(index + 2 + length)])
            index += 2 + length
            let trimmed = Array(value.drop { $0 == 0 })
            return [UInt8](repeating: 0, count: 32 - trimmed.count) + trimmed
        }
        return integer() + integer()
    }

    private func bytes(_ hex: String) -> [UInt8] {
        let characters = Array(hex)
        return stride(from: 0, to: characters.count - 1, by: 2).compactMap { UInt8(String(characters[$0...$0 + 1]), radix: 16) }
    }
}

/// A digest held in 32 bytes reads and writes the same hex as the string form, and nothing else.
final class SHA256DigestTests: XCTestCase {
    func testHexAndBytesRoundTrip() throws {
        let text = SHA256.hex("abc")
        let digest = try XCTUnwrap(SHA256Digest(hex: text))
        XCTAssertEqual(digest.hex, text)
        XCTAssertEqual(digest, SHA256.digest("abc"))
        XCTAssertEqual(SHA256Digest(bytes: digest.bytes), digest)
        XCTAssertEqual(Hex.encode(digest.bytes), text)
        var appended = Array("x".utf8)
        digest.appendHex(to: &appended)
        XCTAssertEqual(String(decoding: appended, as: UTF8.self), "x" + text)
        XCTAssertNotEqual(SHA256.digest("abd"), digest)
    }

    func testOnlySixtyFourLowercaseDigitsAreADigest() {
        let text = SHA256.hex("abc")
        // The neighbours of the two ranges, and a two-byte character in place of two digits.
        let neighbours = ["/", ":", "`", "g", "@", "G", "F", "\u{7F}"].map { $0 + text.dropFirst() } + ["é" + text.dropFirst(2)]
        for bad in [text.uppercased(), String(text.dropLast()), text + "0", "", String(repeating: " ", count: 64)] + neighbours {
            XCTAssertNil(SHA256Digest(hex: bad), bad)
        }
        XCTAssertNil(SHA256Digest(bytes: [UInt8](repeating: 1, count: 31)))
    }
}
