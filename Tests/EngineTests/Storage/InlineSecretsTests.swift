import Basics
@testable import Engine
import Foundation
import HTTPClient
import Spec
import XCTest

/// Inline secrets leave the steps and params the engine keeps; a step that needs one after the
/// engine lost it (a restart) fails and says why.
final class InlineSecretsTests: XCTestCase {
    func testSecretsLeaveStepsAndParamsOnly() throws {
        let steps = JSONValue.object([
            "stored": .object(["robot": .string("/s3/store"), "key": .string("AKIA"), "secret": .string("s3cr3t"), "session_token": .string("t0k3n")]),
            "resized": .object(["robot": .string("/image/resize"), "width": .int(10)]),
        ])
        let (redacted, secrets) = InlineSecrets.redact(steps: steps)
        XCTAssertEqual(secrets, ["stored": ["secret": "s3cr3t", "session_token": "t0k3n"]])
        XCTAssertEqual(redacted["stored"]?["secret"], .string(InlineSecrets.hidden))
        XCTAssertEqual(redacted["stored"]?["key"], .string("AKIA"), "a key id is no secret")
        XCTAssertEqual(redacted["resized"], steps["resized"])
        let params = JSONValue.object(["steps": steps, "fields": .object(["a": .string("b")])]).serialized()
        let hidden = InlineSecrets.redact(params: params)
        XCTAssertFalse(hidden.contains("s3cr3t") || hidden.contains("t0k3n"), hidden)
        XCTAssertTrue(hidden.contains("\"fields\""))
        let plain = JSONValue.object(["steps": .object(["resized": steps["resized"] ?? .null])]).serialized()
        XCTAssertEqual(InlineSecrets.redact(params: plain), plain, "params without secrets stay as they were sent")

        let kept = InlineSecrets()
        kept.keep(secrets, for: "a1")
        XCTAssertEqual(kept.secrets(of: "a1", step: "stored")["secret"], "s3cr3t")
        kept.forget("a1")
        XCTAssertEqual(kept.secrets(of: "a1", step: "stored"), [:])
    }

    func testAHiddenSecretTheEngineNoLongerHoldsFailsTheStep() throws {
        let options: [String: JSONValue] = [
            "robot": .string("/s3/store"), "bucket": .string("site"), "key": .string("AKIA"), "secret": .string(InlineSecrets.hidden),
        ]
        let parameters = try S3Store.parameters(options, of: "/s3/store")
        var context = RobotContext(
            step: StepGraph.Step(name: "stored", robot: "/s3/store", options: options, uses: []), folder: "/nonexistent", fields: [:],
            assembly: "a1", exports: "/nonexistent/exports", limits: RobotLimits())
        XCTAssertThrowsError(try S3StepSettings.resolve(robot: "/s3/store", parameters.connection, context: context)) { error in
            XCTAssertTrue((error as? RobotError)?.message.contains("restarted") == true, "\(error)")
        }
        context.inlineSecrets = ["secret": "s3cr3t"]
        let settings = try XCTUnwrap(try S3StepSettings.resolve(robot: "/s3/store", parameters.connection, context: context))
        XCTAssertEqual(settings.credentials, S3Credentials(key: "AKIA", secret: "s3cr3t"))
        XCTAssertEqual(settings.bucket.requestHost, "site.s3.us-east-1.amazonaws.com")
    }
}
