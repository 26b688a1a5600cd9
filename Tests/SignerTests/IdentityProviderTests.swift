import Basics
import Foundation
import HTTPClient
import HTTPServer
import Signer
import Synchronization
import TestSupport
import XCTest

/// Identity providers against a real HTTPS identity provider on 127.0.0.1 (a private CA,
/// discovery, a JWKS the test rotates, an outage): keys fetched, cached and refetched as the
/// policy says, tokens matched to providers by issuer, claim rules, the audit log.
final class IdentityProviderTests: XCTestCase {
    private var keys: SignerFixture!
    private var idp: TestIdentityProvider!
    private var issuer: String { idp.issuer }
    private var services: [HTTPServer] = []
    /// The signers' clock: key caches and cooldowns pass when the test advances it.
    private let clock = ManualClock()
    /// What the signers reported to their operator.
    private let log = LogLines()
    private var logged: String { log.lines.withLock { $0.joined(separator: "\n") } }

    private final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
    }

    override func setUpWithError() throws {
        keys = try SignerFixture()
        idp = try TestIdentityProvider()
    }

    override func tearDown() {
        services.forEach { $0.stop() }
        idp.stop()
        keys = nil
    }

    private func fetches() -> Int { idp.requests(to: "/jwks") }

    /// A signer trusting the test provider `ci` (by discovery) and `apple` (keys by URL).
    private func startSigner(_ cache: KeyCachePolicy = KeyCachePolicy(), offline: String? = nil) throws -> String {
        // `offline`: a JWKS file for a third provider, `offline`, whose tokens name https://offline.example.
        let offlineProvider = offline.map { "\n  - {name: offline, issuer: https://offline.example, audience: pipeline-signer, jwks_file: \($0)}" } ?? ""
        let offlineIdentity = offline == nil ? "" : "\n  - {name: offline-ci, provider: offline, claims: {repository: acme/site}}"
        try keys.directory.write("providers.yml", """
            version: 1
            providers:\(offlineProvider)
              - name: ci
                issuer: \(issuer)
                audience: [pipeline-signer, deploys]
              - name: apple
                issuer: https://appleid.example
                audience: com.example.app
                jwks_uri: \(issuer)/jwks
            identities:
              - name: releases
                provider: ci
                claims: {repository: acme/site, ref: [refs/heads/main, "refs/tags/v*"]}
              - name: app-user
                provider: apple
                claims: {email_verified: true, nonce: "*"}\(offlineIdentity)
            """)
        var configuration = SigningService.Configuration(
            policy: try XCTUnwrap(PolicyFixture.load(keys.directory.path + "/policy.yml")), policyText: "",
            callersPath: keys.directory.path + "/providers.yml", keyCache: cache, authKey: nil, secret: SignerFixture.secret,
            auditLog: keys.directory.path + "/providers-audit.jsonl",
            http: HTTPClient(trust: TLSTrust(caFiles: [idp.certificate])))
        configuration.log = { [log] line in log.lines.withLock { $0.append(line) } }
        configuration.clock = clock
        let service = try SigningService(configuration, environment: [:])
        let server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: service)
        services.append(server)
        return "http://127.0.0.1:\(server.port)"
    }

    private func sign(at signer: String, _ bearer: String) async throws -> (status: Int, body: JSONValue) {
        let body = JSONValue.object(["params": .string(SignerFixture.params())]).serialized()
        let response = try await keys.http.send(HTTPRequest(
            method: "POST", url: signer + "/sign", headers: [("Authorization", "Bearer " + bearer)], body: .data(Data(body.utf8))))
        return (response.status, try JSONValue.parse(response.body))
    }

    private func ci(_ changes: [String: JSONValue] = [:], kid: String = "rsa-1", signingKey: String? = nil) throws -> String {
        var claims: [String: JSONValue] = ["aud": .string("pipeline-signer"), "sub": .string("repo:acme/site:ref:refs/heads/main"),
                                           "repository": .string("acme/site"), "ref": .string("refs/heads/main")]
        claims.merge(changes) { $1 }
        return try idp.mint(claims, kid: kid, signingKey: signingKey)
    }

    func testProvidersByIssuerClaimRulesAndTheAuditLog() async throws {
        let signer = try startSigner()
        let apple: [String: JSONValue] = ["iss": .string("https://appleid.example"), "aud": .string("com.example.app"), "sub": .string("000123.abc"),
                                          "email_verified": .string("true"), "nonce": .string("9f86d0")]
        let cases: [(String, String, Int, String?)] = [
            ("the main branch", try ci(), 200, nil),
            ("a release tag, by pattern", try ci(["ref": .string("refs/tags/v1.2.0")]), 200, nil),
            ("another audience of the provider", try ci(["aud": .array([.string("x"), .string("deploys")])]), 200, nil),
            ("a feature branch", try ci(["ref": .string("refs/heads/feature")]), 401, "NO_MATCHING_IDENTITY"),
            ("a tag without the v", try ci(["ref": .string("refs/tags/1.2")]), 401, "NO_MATCHING_IDENTITY"),
            ("an audience of no provider", try ci(["aud": .string("com.example.app")]), 401, "WRONG_AUDIENCE"),
            ("an unknown issuer", try ci(["iss": .string("https://evil.example")]), 401, "WRONG_ISSUER"),
            ("the right issuer, a foreign key under a known kid", try ci(signingKey: "rsa-2"), 401, "INVALID_TOKEN"),
            ("Apple, email_verified as the string \"true\"", try idp.mint(apple), 200, nil),
            ("Apple, email_verified as JSON true", try idp.mint(apple.merging(["email_verified": .bool(true)]) { $1 }), 200, nil),
            ("Apple, an unverified email", try idp.mint(apple.merging(["email_verified": .bool(false)]) { $1 }), 401, "NO_MATCHING_IDENTITY"),
            ("Apple, no nonce", try idp.mint(apple.filter { $0.key != "nonce" }), 401, "NO_MATCHING_IDENTITY"),
            ("a CI token matching only the Apple rule", try ci(["email_verified": .bool(true), "nonce": .string("x"), "ref": .string("x")]), 401, "NO_MATCHING_IDENTITY"),
        ]
        var tokens: [String] = []
        for (name, token, status, code) in cases {
            tokens.append(token)
            let answer = try await sign(at: signer, token)
            XCTAssertEqual(answer.status, status, "\(name): \(answer.body.serialized())")
            if let code { XCTAssertEqual(answer.body["error"], .string(code), name) }
        }
        XCTAssertEqual(fetches(), 2, "each provider fetches its keys once while they are fresh")
        let lines = try String(contentsOfFile: keys.directory.path + "/providers-audit.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, cases.count)
        let first = try JSONValue.parse(Data(lines[0].utf8))
        XCTAssertEqual(first["caller"], .string("releases"))
        XCTAssertEqual(first["provider"], .string("ci"))
        XCTAssertEqual(first["subject"], .string("repo:acme/site:ref:refs/heads/main"))
        let foreign = try JSONValue.parse(Data(lines[7].utf8))
        XCTAssertEqual(foreign["provider"], .string("ci"))
        XCTAssertNil(foreign["subject"], "an unverified token's subject is not logged")
        let log = lines.joined(separator: "\n")
        for token in tokens { XCTAssertFalse(log.contains(String(token.split(separator: ".")[2])), "no token reaches the audit log") }
    }

    func testKeysRotateWhileTheSignerRunsAndUnknownKidsCannotMakeItHammer() async throws {
        let signer = try startSigner(KeyCachePolicy(refetchInterval: .seconds(2)))
        let before = try await sign(at: signer, try ci())
        XCTAssertEqual(before.status, 200, before.body.serialized())
        try idp.publish(["rsa-2"])
        // A flood of made-up key ids within the interval: refused (for now, or for good once a
        // fetch looked for them), and at most one refetch.
        for index in 0..<40 {
            let answer = try await sign(at: signer, try ci(kid: "made-up-\(index)", signingKey: "rsa-1"))
            XCTAssertTrue([.string("UNKNOWN_KEY"), .string("KEY_NOT_YET_FETCHED")].contains(answer.body["error"]), answer.body.serialized())
        }
        XCTAssertLessThanOrEqual(fetches(), 2, "unknown kids fetch at most once per interval")
        clock.advance(by: .milliseconds(2100))
        let rotated = try await sign(at: signer, try ci(kid: "rsa-2"))
        XCTAssertEqual(rotated.status, 200, "the new key is fetched when a token names it: \(rotated.body.serialized())")
        // The retired key: within the cooldown it may be new, after a fetch it is gone.
        var retired = try await sign(at: signer, try ci())
        if retired.body["error"] == .string("KEY_NOT_YET_FETCHED") {
            clock.advance(by: .seconds(retired.body["retry_in"]?.intValue ?? 1))
            retired = try await sign(at: signer, try ci())
        }
        XCTAssertEqual(retired.body["error"], .string("UNKNOWN_KEY"), "a retired key no longer signs: \(retired.body.serialized())")
    }

    /// A key the provider published seconds ago, named within the signer's refetch cooldown: a
    /// transient refusal for the rest of the cooldown (503 with `retry_in`), then it signs.
    func testAKeyPublishedDuringTheCooldownIsTransient() async throws {
        let signer = try startSigner(KeyCachePolicy(refetchInterval: .seconds(2)))
        let before = try await sign(at: signer, try ci())
        XCTAssertEqual(before.status, 200, before.body.serialized())
        let fetched = fetches()
        try idp.publish(["rsa-1", "rsa-2"])
        let early = try await sign(at: signer, try ci(kid: "rsa-2"))
        XCTAssertEqual(early.status, 503, early.body.serialized())
        XCTAssertEqual(early.body["error"], .string("KEY_NOT_YET_FETCHED"))
        let wait = try XCTUnwrap(early.body["retry_in"]?.intValue)
        XCTAssertTrue((1...2).contains(wait), "the rest of the cooldown: \(wait)")
        XCTAssertEqual(fetches(), fetched, "no fetch within the cooldown")
        clock.advance(by: .seconds(wait))
        let later = try await sign(at: signer, try ci(kid: "rsa-2"))
        XCTAssertEqual(later.status, 200, later.body.serialized())
    }

    /// A provider whose keys are a JWKS file: an operator rotating keys offline replaces the file,
    /// and a token naming the new key signs once the cooldown lets the file be read again.
    func testAJWKSFileIsReadAgainWhenATokenNamesAKeyItLacks() async throws {
        let file = keys.directory.path + "/offline-jwks.json"
        func publish(_ ids: [String]) throws {
            let jwks = JSONValue.object(["keys": .array(try ids.map { try TestIdentityProvider.rsaJWK(idp.directory.path + "/\($0).pem", kid: $0) })])
            try jwks.serialized().write(toFile: file, atomically: true, encoding: .utf8)
        }
        try publish(["rsa-1"])
        let signer = try startSigner(KeyCachePolicy(refetchInterval: .seconds(1)), offline: file)
        func token(_ kid: String) throws -> String {
            try idp.mint(["iss": .string("https://offline.example"), "aud": .string("pipeline-signer"), "repository": .string("acme/site")], kid: kid)
        }
        let first = try await sign(at: signer, try token("rsa-1"))
        XCTAssertEqual(first.status, 200, first.body.serialized())
        let unknown = try await sign(at: signer, try token("rsa-2"))
        XCTAssertEqual(unknown.body["error"], .string("UNKNOWN_KEY"), "the file read again does not list it: \(unknown.body.serialized())")
        try publish(["rsa-1", "rsa-2"])
        clock.advance(by: .milliseconds(1100))
        let rotated = try await sign(at: signer, try token("rsa-2"))
        XCTAssertEqual(rotated.status, 200, "the replaced file is read: \(rotated.body.serialized())")
    }

    func testCachedKeysServeForABoundedTimeWhileTheProviderIsDown() async throws {
        let signer = try startSigner(KeyCachePolicy(defaultFreshness: .zero, freshness: .zero...(.zero), refetchInterval: .zero, staleFor: .seconds(1)))
        let first = try await sign(at: signer, try ci())
        XCTAssertEqual(first.status, 200, first.body.serialized())
        try idp.write("down", "")
        let during = try await sign(at: signer, try ci())
        XCTAssertEqual(during.status, 200, "stale keys serve while the provider is down: \(during.body.serialized())")
        clock.advance(by: .milliseconds(1200))
        let later = try await sign(at: signer, try ci())
        XCTAssertEqual(later.status, 503, later.body.serialized())
        XCTAssertEqual(later.body["error"], .string("KEYS_UNAVAILABLE"))
        XCTAssertFalse(later.body["message"]?.stringValue?.contains(issuer) == true, "the caller is not told the provider's URLs: \(later.body.serialized())")
        XCTAssertTrue(logged.contains("answered 503") && logged.contains("the cached keys serve meanwhile"), "the operator is: \(logged)")
        try idp.remove("down")
        let back = try await sign(at: signer, try ci())
        XCTAssertEqual(back.status, 200, back.body.serialized())
    }

    func testDiscoveryMustNameTheIssuerAndProvidersMustBeHTTPS() async throws {
        try idp.write("discovery.json", JSONValue.object(["issuer": .string("https://someone-else.example"), "jwks_uri": .string(issuer + "/jwks")]).serialized())
        let signer = try startSigner()
        let answer = try await sign(at: signer, try ci())
        XCTAssertEqual(answer.status, 503)
        XCTAssertTrue(logged.contains("names the issuer 'https://someone-else.example'"), logged)

        let configurations: [(String, String)] = [
            ("providers: [{name: a, issuer: http://ci.example, audience: x}]", "callers.insecure-provider"),
            ("providers: [{name: a, issuer: https://ci.example, audience: x, jwks_uri: http://ci.example/k}]", "callers.insecure-provider"),
            ("providers: [{name: a, issuer: https://a.example, audience: x}, {name: b, issuer: https://b.example, audience: x}]\nidentities: [{name: i, claims: {sub: s}}]", "callers.ambiguous-identity"),
            ("providers: [{name: a, issuer: https://a.example, audience: x}]\nidentities: [{name: i, provider: b, claims: {sub: s}}]", "callers.unknown-provider"),
            ("providers: [{name: a, issuer: https://a.example, audience: []}]", "callers.empty-value"),
            ("providers: [{name: a, issuer: 'https://a.example/?x=1', audience: x}]", "callers.insecure-provider"),
            ("providers: [{name: a, issuer: https://a.example, audience: x}, {name: b, issuer: https://a.example, audience: y}]", "callers.duplicate-issuer"),
            ("providers: [{name: a, issuer: https://a.example, audience: x, jwks_file: missing.json}]", "callers.bad-jwks"),
            ("providers: [{name: a, issuer: https://a.example, audience: x}]\nidentities: [{name: i, provider: a, claims: {}}]", "callers.empty-claims"),
            ("providers: [{name: a, issuer: https://a.example, audience: x}]\nidentities: [{name: i, provider: a, claims: {sub: s}}, {name: i, provider: a, claims: {sub: t}}]",
             "callers.duplicate-name"),
            ("providers: [{name: a, issuer: https://a.example, audience: x}]\nidentities: [{name: i, provider: a, claims: {groups: {has: x}}}]", "callers.unknown-key"),
        ]
        for (text, id) in configurations {
            let diagnostics = try refusal(of: text)
            XCTAssertTrue(diagnostics.contains { $0.id == id }, "\(text): \(diagnostics.map(\.message))")
            XCTAssertTrue(diagnostics.allSatisfy { $0.location?.line ?? 0 > 1 }, "each names its line: \(diagnostics.map(\.message))")
        }
        // A provider with an error of its own is not also reported as unknown where an identity names it.
        let http = try refusal(of: "providers: [{name: a, issuer: http://a.example, audience: x}]\nidentities: [{name: i, provider: a, claims: {sub: s}}]")
        XCTAssertEqual(http.map(\.id), ["callers.insecure-provider"])
    }

    /// What the signer says of a callers file holding `text` after its version line (it must refuse it).
    private func refusal(of text: String) throws -> [Diagnostic] {
        try keys.directory.write("bad.yml", "version: 1\n" + text + "\n")
        do {
            _ = try SigningService(.init(
                policy: try XCTUnwrap(PolicyFixture.load(keys.directory.path + "/policy.yml")), policyText: "",
                callersPath: keys.directory.path + "/bad.yml", authKey: nil, secret: "s", auditLog: nil), environment: [:])
        } catch let error as DiagnosticsError {
            return error.diagnostics
        }
        XCTFail("\(text) is refused")
        return []
    }
}
