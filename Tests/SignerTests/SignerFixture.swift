import Basics
import Foundation
import HTTPClient
import HTTPServer
import Signer
import TestSupport
import XCTest

/// A running signer with a policy, static tokens, identity rules and real RSA and P-256 keys
/// made with the openssl command, plus helpers to mint JWTs with them.
final class SignerFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let server: HTTPServer
    let http = HTTPClient()
    static let secret = "signer-test-secret-9a8b"
    static let token = "static-token-3c4d"
    static let limitedToken = "limited-token-5e6f"

    init() throws {
        directory = try TemporaryDirectory(prefix: "signer")
        try directory.write("policy.yml", """
            version: 1
            auth_key: test-key
            max_expires_in: 1h
            templates: {allowed: [tpl-ok], allow_steps_override: false}
            fields: {allowed: [kind]}
            robots:
              /image/resize:
                width: {type: integer, min: 1, max: 400}
                use: {}
            """)
        try directory.write("callers.yml", """
            version: 1
            callers:
              - name: ci
                token_sha256: \(FileHashing.sha256(Data(Self.token.utf8)))
              - name: limited
                token_sha256: \(FileHashing.sha256(Data(Self.limitedToken.utf8)))
                quota: 2/1h
            identities:
              - name: main-branch
                claims: {repository: acme/site, ref: refs/heads/main}
            """)
        for (name, arguments) in [("rsa.pem", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
                                  ("ec.pem", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
                                  ("other.pem", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])] {
            let result = try ProcessRunner.run("/usr/bin/openssl", ["genpkey"] + arguments + ["-out", directory.path + "/" + name])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        try directory.write("jwks.json", try Self.jwks(rsa: directory.path + "/rsa.pem", ec: directory.path + "/ec.pem"))
        let policy = try XCTUnwrap(PolicyFixture.load(directory.path + "/policy.yml"))
        let service = try SigningService(.init(
            policy: policy, policyText: try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8),
            callersPath: directory.path + "/callers.yml",
            providers: [IdentityProvider(name: "default", issuer: "https://issuer.example", audiences: ["pipeline-signer"], keys: .file(directory.path + "/jwks.json"))],
            authKey: nil, secret: Self.secret, auditLog: directory.path + "/audit.jsonl"), environment: [:])
        server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: service)
    }

    deinit {
        server.stop()
        directory.remove()
    }

    var url: String { "http://127.0.0.1:\(server.port)" }

    /// Params valid under the policy, with a fresh expiry.
    static func params(steps: JSONValue? = nil, extra: [String: JSONValue] = [:], lifetime: Duration = .seconds(600), key: String = "test-key") -> String {
        var object: [String: JSONValue] = ["steps": steps ?? .object(["thumb": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(200)])])]
        for (name, value) in extra { object[name] = value }
        return AuthParams.prepare(.object(object), key: key, lifetime: lifetime).serialized()
    }

    func sign(_ params: String, bearer: String?) async throws -> (status: Int, body: JSONValue) {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer " + bearer)) }
        let body = JSONValue.object(["params": .string(params)]).serialized()
        let response = try await http.send(HTTPRequest(method: "POST", url: url + "/sign", headers: headers, body: .data(Data(body.utf8))))
        return (response.status, try JSONValue.parse(response.body))
    }

    /// A JWT signed with `key` (a PEM file in the fixture) using RS256 or ES256.
    func jwt(claims: [String: JSONValue], key: String = "rsa.pem", algorithm: String = "RS256", kid: String? = nil,
             header extra: [String: JSONValue] = [:]) throws -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string("JWT")].merging(extra) { $1 }
        if let kid { header["kid"] = .string(kid) }
        let input = Base64URL.encode(Data(JSONValue.object(header).serialized().utf8)) + "." + Base64URL.encode(Data(JSONValue.object(claims).serialized().utf8))
        if algorithm == "none" { return input + "." }
        let inputPath = try directory.write("jwt-input", input)
        let result = try ProcessRunner.run("/usr/bin/openssl", ["dgst", "-sha256", "-sign", directory.path + "/" + key, "-out", directory.path + "/jwt-sig", inputPath])
        XCTAssertEqual(result.status, 0, result.stderr)
        var signature = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/jwt-sig"))
        if algorithm == "ES256" { signature = Self.rawECDSA(der: signature) }
        return input + "." + Base64URL.encode(signature)
    }

    /// Standard claims valid now, for the identity rule.
    static func claims(_ changes: [String: JSONValue] = [:]) -> [String: JSONValue] {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string("https://issuer.example"), "aud": .string("pipeline-signer"), "exp": .int(now + 300), "nbf": .int(now - 10),
            "iat": .int(now - 10), "repository": .string("acme/site"), "ref": .string("refs/heads/main"),
        ]
        for (key, value) in changes { claims[key] = value }
        return claims
    }


    /// DER `SEQUENCE { INTEGER r, INTEGER s }` to the 64-byte `r || s` of a JWS.
    static func rawECDSA(der: Data) -> Data {
        let bytes = [UInt8](der)
        var index = 2
        if bytes[1] & 0x80 != 0 { index += Int(bytes[1] & 0x7F) }
        func integer() -> [UInt8] {
            let length = Int(bytes[index + 1])
            let value = Array(bytes[(index + 2)..<(index + 2 + length)])
            index += 2 + length
            let trimmed = Array(value.drop { $0 == 0 })
            return [UInt8](repeating: 0, count: max(0, 32 - trimmed.count)) + trimmed
        }
        return Data(integer() + integer())
    }

    private static func jwks(rsa: String, ec: String) throws -> String {
        JSONValue.object(["keys": .array([try TestIdentityProvider.rsaJWK(rsa, kid: "rsa-1"), try ecJWK(ec, kid: "ec-1")])]).serialized()
    }

    /// The public JWK of the P-256 key in the PEM file at `path`.
    static func ecJWK(_ path: String, kid: String) throws -> JSONValue {
        let der = try ProcessRunner.run("/bin/sh", ["-c", "openssl pkey -in '\(path)' -pubout -outform DER | od -An -v -tx1"]).stdout
        let point = der.split(whereSeparator: \.isWhitespace).compactMap { UInt8($0, radix: 16) }.suffix(65)
        let x = Data(point.dropFirst().prefix(32)), y = Data(point.suffix(32))
        return .object(["kty": .string("EC"), "kid": .string(kid), "crv": .string("P-256"), "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y))])
    }
}

import Spec
import Wire

/// Loads a policy file for a test.
enum PolicyFixture {
    static func load(_ path: String) -> Policy? { PolicyLoader(environment: [:]).load(path: path).value }
}
