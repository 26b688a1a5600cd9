import Basics
import Foundation
import HTTPClient
import TestSupport
import Wire
import XCTest

/// `pipeline signer` request by request: what it signs, every refusal with its status and
/// violation, JWT callers, quotas, and an audit log that never holds a secret.
final class SigningServiceTests: XCTestCase {
    func testSignsExactlyTheBytesReceivedForAStaticToken() async throws {
        let fixture = try SignerFixture()
        // Unusual spacing and key order: the signer must not re-serialize.
        let params = #"{ "steps": {"thumb": {"use": ":original", "robot": "/image/resize", "width": 20}},"# + "\n"
            + #" "auth": {"key": "test-key", "expires": "\#(AuthParams.expires(Date().addingTimeInterval(300)))"} }"#
        let answer = try await fixture.sign(params, bearer: SignerFixture.token)
        XCTAssertEqual(answer.status, 200, answer.body.serialized())
        XCTAssertEqual(answer.body["params"], .string(params))
        XCTAssertEqual(answer.body["signature"], .string(Signature.sign(params, secret: SignerFixture.secret)))
    }

    func testEveryRefusalHasItsStatusAndViolation() async throws {
        let fixture = try SignerFixture()
        let resize: (Int) -> JSONValue = { width in
            .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(width)])
        }
        let expired = JSONValue.object(["steps": .object(["thumb": resize(10)]), "auth": .object([
            "key": .string("test-key"), "expires": .string(AuthParams.expires(Date().addingTimeInterval(-60))),
        ])]).serialized()
        let cases: [(String, String, Int, String)] = [
            ("an extra step", SignerFixture.params(steps: .object(["thumb": resize(10), "encode": .object(["robot": .string("/video/encode")])])), 403, "policy.robot-not-allowed"),
            ("a changed option value", SignerFixture.params(steps: .object(["thumb": resize(4000)])), 403, "policy.option-value"),
            ("an option not allowed", SignerFixture.params(steps: .object(["thumb": .object(["robot": .string("/image/resize"), "height": .int(5)])])), 403, "policy.option-not-allowed"),
            ("a template not allowed", SignerFixture.params(steps: .object([:]), extra: ["template_id": .string("other")]), 403, "policy.template-not-allowed"),
            ("a template_id vouched for by a 'template' key", SignerFixture.params(steps: .object([:]), extra: [
                "template_id": .string("evil"), "template": .object(["name": .string("tpl-ok"), "content": .object([:])]),
            ]).replacingOccurrences(of: #""steps":{},"#, with: ""), 403, "policy.unknown-param"),
            ("steps over a template that forbids it", SignerFixture.params(extra: ["template_id": .string("tpl-ok")]), 403, "policy.steps-override"),
            ("a field not allowed", SignerFixture.params(extra: ["fields": .object(["secret_field": .string("x")])]), 403, "policy.field-not-allowed"),
            ("an unknown top-level field", SignerFixture.params(extra: ["blocking": .bool(true)]), 403, "policy.unknown-param"),
            ("a lifetime over the maximum", SignerFixture.params(lifetime: .seconds(7200)), 403, "policy.lifetime"),
            ("an expired auth.expires", expired, 403, "signer.expired"),
            ("another auth key", SignerFixture.params(key: "other-key"), 403, "signer.auth-key"),
            ("arbitrary JSON", #"["sign", "me"]"#, 400, "INVALID_PARAMS"),
            ("a repeated option", SignerFixture.params().replacingOccurrences(of: #""width":200"#, with: #""width":200,"width":4000"#), 400, "DUPLICATE_KEY"),
            ("a repeated key equal after unescaping", SignerFixture.params().replacingOccurrences(of: #""width":200"#, with: #""width":200,"w\u0069dth":4000"#), 400, "DUPLICATE_KEY"),
            ("two auth objects", SignerFixture.params().replacingOccurrences(of: #"{"auth":"#, with: #"{"auth":{"key":"other"},"auth":"#), 400, "DUPLICATE_KEY"),
        ]
        for (name, params, status, violation) in cases {
            let answer = try await fixture.sign(params, bearer: SignerFixture.token)
            XCTAssertEqual(answer.status, status, "\(name): \(answer.body.serialized())")
            let ids = (answer.body["violations"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } + [answer.body["error"]?.stringValue ?? ""]
            XCTAssertTrue(ids.contains(violation), "\(name): \(answer.body.serialized())")
            XCTAssertNil(answer.body["signature"], name)
            XCTAssertFalse(answer.body.serialized().contains(SignerFixture.secret), name)
            XCTAssertFalse(answer.body.serialized().contains(SignerFixture.token), name)
        }
    }

    func testCallersMustAuthenticate() async throws {
        let fixture = try SignerFixture()
        let params = SignerFixture.params()
        let now = Int(Date().timeIntervalSince1970)
        let cases: [(String, String?, String)] = [
            ("no token", nil, "NO_TOKEN"),
            ("a wrong token", "not-a-known-token", "INVALID_TOKEN"),
            ("an expired JWT", try fixture.jwt(claims: SignerFixture.claims(["exp": .int(now - 600)])), "TOKEN_EXPIRED"),
            ("a JWT not valid yet", try fixture.jwt(claims: SignerFixture.claims(["nbf": .int(now + 600)])), "TOKEN_NOT_YET_VALID"),
            ("a wrong audience", try fixture.jwt(claims: SignerFixture.claims(["aud": .string("someone-else")])), "WRONG_AUDIENCE"),
            ("a wrong issuer", try fixture.jwt(claims: SignerFixture.claims(["iss": .string("https://evil.example")])), "WRONG_ISSUER"),
            ("alg none", try fixture.jwt(claims: SignerFixture.claims(), algorithm: "none"), "UNSUPPORTED_ALGORITHM"),
            ("an HMAC JWT", try fixture.jwt(claims: SignerFixture.claims(), algorithm: "HS256"), "UNSUPPORTED_ALGORITHM"),
            ("a key not in the JWKS", try fixture.jwt(claims: SignerFixture.claims(), key: "other.pem"), "INVALID_TOKEN"),
            ("claims that match no rule", try fixture.jwt(claims: SignerFixture.claims(["ref": .string("refs/heads/feature")])), "NO_MATCHING_IDENTITY"),
            ("the expected value among others in a list", try fixture.jwt(claims: SignerFixture.claims([
                "repository": .array([.string("evil/fork"), .string("acme/site")]),
            ])), "NO_MATCHING_IDENTITY"),
            ("a critical header extension", try fixture.jwt(claims: SignerFixture.claims(), header: ["crit": .array([.string("exp")])]), "INVALID_TOKEN"),
            ("exp as text", try fixture.jwt(claims: SignerFixture.claims(["exp": .string("\(now + 300)")])), "INVALID_TOKEN"),
            ("exp days away", try fixture.jwt(claims: SignerFixture.claims(["exp": .int(now + 3 * 86_400)])), "INVALID_TOKEN"),
            ("nbf as text", try fixture.jwt(claims: SignerFixture.claims(["nbf": .string("soon")])), "INVALID_TOKEN"),
            ("sub as a number", try fixture.jwt(claims: SignerFixture.claims(["sub": .int(7)])), "INVALID_TOKEN"),
            ("a padded signature", try fixture.jwt(claims: SignerFixture.claims()) + "==", "INVALID_TOKEN"),
        ]
        for (name, bearer, code) in cases {
            let answer = try await fixture.sign(params, bearer: bearer)
            XCTAssertEqual(answer.status, 401, "\(name): \(answer.body.serialized())")
            XCTAssertEqual(answer.body["error"], .string(code), name)
        }
        let rs256 = try await fixture.sign(params, bearer: try fixture.jwt(claims: SignerFixture.claims(), kid: "rsa-1"))
        XCTAssertEqual(rs256.status, 200, rs256.body.serialized())
        let es256 = try await fixture.sign(params, bearer: try fixture.jwt(claims: SignerFixture.claims(), key: "ec.pem", algorithm: "ES256", kid: "ec-1"))
        XCTAssertEqual(es256.status, 200, es256.body.serialized())
    }

    func testQuotaAndAuditLog() async throws {
        let fixture = try SignerFixture()
        for _ in 0..<2 {
            let allowed = try await fixture.sign(SignerFixture.params(), bearer: SignerFixture.limitedToken)
            XCTAssertEqual(allowed.status, 200)
        }
        let limited = try await fixture.sign(SignerFixture.params(), bearer: SignerFixture.limitedToken)
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.body["error"], .string("QUOTA_EXCEEDED"))
        XCTAssertNotNil(limited.body["retry_in"]?.intValue)
        _ = try await fixture.sign(SignerFixture.params(), bearer: "wrong")

        let log = try String(contentsOfFile: fixture.directory.path + "/audit.jsonl", encoding: .utf8)
        let lines = log.split(separator: "\n").map { try? JSONValue.parse(Data($0.utf8)) }
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines.compactMap { $0?["decision"]?.stringValue }, ["signed", "signed", "refused", "refused"])
        XCTAssertEqual(lines.first??["caller"], .string("limited"))
        XCTAssertEqual(lines.first??["params_sha256"]?.stringValue?.count, 64)
        for forbidden in [SignerFixture.secret, SignerFixture.limitedToken, "sha384:"] {
            XCTAssertFalse(log.contains(forbidden), "the audit log holds \(forbidden)")
        }
    }

    func testPolicyAndHealthEndpoints() async throws {
        let fixture = try SignerFixture()
        let policy = try await fixture.http.send(HTTPRequest(method: "GET", url: fixture.url + "/policy"))
        XCTAssertEqual(policy.status, 200)
        XCTAssertEqual(String(decoding: policy.body, as: UTF8.self), try String(contentsOfFile: fixture.directory.path + "/policy.yml", encoding: .utf8))
        let health = try await fixture.http.send(HTTPRequest(method: "GET", url: fixture.url + "/healthz"))
        XCTAssertEqual(health.status, 200)
    }

    func testARequestBodyWithTwoParamsIsRefused() async throws {
        let fixture = try SignerFixture()
        let good = JSONValue.string(SignerFixture.params()).serialized()
        let bad = JSONValue.string(SignerFixture.params(steps: .object(["x": .object(["robot": .string("/video/encode")])]))).serialized()
        let body = #"{"params":\#(good),"params":\#(bad)}"#
        let response = try await fixture.http.send(HTTPRequest(
            method: "POST", url: fixture.url + "/sign",
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer " + SignerFixture.token)], body: .data(Data(body.utf8))))
        XCTAssertEqual(response.status, 400)
        let answer = try JSONValue.parse(response.body)
        XCTAssertEqual(answer["error"], .string("DUPLICATE_KEY"))
        XCTAssertTrue(answer["message"]?.stringValue?.contains("'params'") == true, answer.serialized())
    }

    func testTemplateWritesAreCheckedAgainstThePolicy() async throws {
        let fixture = try SignerFixture()
        let steps: JSONValue = .object(["thumb": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(200)])])
        let cases: [([String: JSONValue], Int, String?)] = [
            (["name": .string("tpl-ok"), "template": .object(["steps": steps])], 200, nil),
            (["name": .string("other-name"), "template": .object(["steps": steps])], 403, "policy.template-not-allowed"),
            (["name": .string("tpl-ok"), "template": .object(["steps": .object(["v": .object(["robot": .string("/video/encode")])])])], 403, "policy.robot-not-allowed"),
        ]
        for (params, status, violation) in cases {
            let text = AuthParams.prepare(.object(params), key: "test-key", lifetime: .seconds(600)).serialized()
            let answer = try await fixture.sign(text, bearer: SignerFixture.token)
            XCTAssertEqual(answer.status, status, answer.body.serialized())
            if let violation {
                let ids = (answer.body["violations"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                XCTAssertTrue(ids.contains(violation), "\(violation): \(answer.body.serialized())")
            }
        }
    }
}
