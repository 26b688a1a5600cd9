import APIClients
import Basics
import Client
import Foundation
import Wire
import XCTest

/// The signer that reads the Auth Secret from the environment.
final class SecretSignerTests: XCTestCase {
    func testSecretSignerNamesTheVariableNeverTheValue() async throws {
        do {
            _ = try SecretSigner(environment: [:])
            XCTFail("no secret")
        } catch {
            XCTAssertTrue(error.message.contains("$TRANSLOADIT_SECRET"))
        }
        let signer = try SecretSigner(environment: ["MY_SECRET": "foo_secret"], variable: "MY_SECRET")
        let signature = try await signer.sign("foo")
        XCTAssertEqual(signature, Signature.sign("foo", secret: "foo_secret"))
    }
}
