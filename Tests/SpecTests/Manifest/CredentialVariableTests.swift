import Basics
import Spec
import YAML
import XCTest

/// Variables that hold credentials are used where credentials go, and nowhere else: a secret
/// elsewhere would be written into plans, results, URLs and messages.
final class CredentialVariableTests: XCTestCase {
    private let environment = ["TRANSLOADIT_SECRET": "s3cret-value", "SIGNER_TOKEN": "t0ken-value", "TRANSLOADIT_KEY": "key", "ID": "jwt-value"]

    private func decode(_ text: String) -> Loaded<Manifest> {
        ManifestLoader(environment: environment).decode(Data(text.utf8), file: "m.yml")
    }

    func testTheSecretAndTheSignerTokenAreRefusedOutsideTheirPlace() {
        let loaded = decode("""
            version: 1
            endpoint: https://api.example.com/${TRANSLOADIT_SECRET}
            auth:
              key: ${TRANSLOADIT_KEY}
              signer: {url: "https://signer.example.com/sign", token: "${SIGNER_TOKEN}"}
            assemblies:
              thumbs:
                inputs: ["images/${SIGNER_TOKEN}/*.png"]
                fields: {leak: "${TRANSLOADIT_SECRET:-none}"}
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10, text: "x ${SIGNER_TOKEN}"}
            """)
        XCTAssertNil(loaded.value)
        let refused = loaded.diagnostics.filter { $0.id == "manifest.credential-variable" }.sorted { ($0.location?.line ?? 0) < ($1.location?.line ?? 0) }
        XCTAssertEqual(refused.map(\.location?.line), [2, 8, 9, 11], "\(loaded.diagnostics)")
        XCTAssertEqual(refused.map(\.location?.column), [35, 22, 21, 75], "at the '${' of each")
        let everything = loaded.diagnostics.map { "\($0.message) \($0.hint ?? "") \($0.notes)" }.joined()
        XCTAssertFalse(everything.contains("s3cret-value"))
        XCTAssertFalse(everything.contains("t0ken-value"))
    }

    func testCredentialsWhereTheyBelongStillWork() throws {
        let manifest = try XCTUnwrap(decode("""
            version: 1
            auth:
              key: ${TRANSLOADIT_KEY}
              signer: {url: "https://signer.example.com/sign", token: "${SIGNER_TOKEN}"}
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
            """).value)
        XCTAssertEqual(manifest.auth.key?.value, "key")
    }

    func testAnIdentityTokenVariableIsACredentialToo() {
        let loaded = decode("""
            version: 1
            auth:
              key: k
              signer: {url: "https://signer.example.com/sign", token: {oidc: env, variable: ID}}
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                fields: {who: "${ID}"}
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
            """)
        XCTAssertEqual(loaded.diagnostics.filter { $0.id == "manifest.credential-variable" }.map(\.location?.line), [8])
    }

    func testTheAuthSecretIsNeverInterpolatedNotEvenAsAToken() {
        let loaded = decode("""
            version: 1
            auth:
              key: k
              signer: {url: "https://signer.example.com/sign", token: "${TRANSLOADIT_SECRET}"}
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
            """)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.filter { $0.id == "manifest.credential-variable" }.map(\.location?.line), [4])
        XCTAssertFalse(loaded.diagnostics.map(\.message).joined().contains("s3cret-value"))
    }

    func testVariablesNamedLikeCredentialsAreRefusedOutsideTheToken() {
        let environment = ["GITHUB_TOKEN": "ghp", "AWS_SECRET_ACCESS_KEY": "aws", "DB_PASSWORD": "pw", "ACTIONS_RUNTIME_TOKEN": "rt", "CDN_BUCKET": "assets"]
        let loaded = ManifestLoader(environment: environment).decode(Data("""
            version: 1
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                fields: {a: "${GITHUB_TOKEN}", b: "${AWS_SECRET_ACCESS_KEY}", c: "${DB_PASSWORD}", d: "${ACTIONS_RUNTIME_TOKEN}", bucket: "${CDN_BUCKET}"}
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
            """.utf8), file: "m.yml")
        XCTAssertEqual(loaded.diagnostics.filter { $0.id == "manifest.credential-variable" }.count, 4, "\(loaded.diagnostics)")
        XCTAssertFalse(loaded.diagnostics.map(\.message).joined().contains("assets"), "an ordinary variable is fine")
        XCTAssertTrue(loaded.diagnostics.allSatisfy { !$0.message.contains("ghp") && !$0.message.contains("aws\"") })
    }

    func testAnUnsetCredentialIsNotOfferedADefault() throws {
        let manifest = try XCTUnwrap(ManifestLoader(environment: [:]).decode(Data("""
            version: 1
            auth:
              key: k
              signer: {url: "https://signer.example.com/sign", token: "${SIGNER_TOKEN}"}
            assemblies:
              thumbs:
                inputs: ["images/*.png"]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
            """.utf8), file: "m.yml").value)
        let hint = try XCTUnwrap(manifest.auth.unresolved.first?.hint)
        XCTAssertFalse(hint.contains(":-"), hint)
        XCTAssertTrue(hint.contains("a credential has no default"), hint)
    }

    func testMoreNamesThatSayTheyAreCredentials() {
        let refused = ["CI_JOB_JWT", "CI_JOB_JWT_V2", "DB_PASS", "MYSQL_PWD", "PGPASS", "DATABASE_URL", "MONGO_URI", "REDIS_URL", "CONNECTION_STRING",
                       "SENTRY_DSN", "SLACK_WEBHOOK_URL", "DOCKER_AUTH_CONFIG", "STRIPE_SK", "ENCRYPTION_KEY", "SIGNING_KEY", "TLS_KEY", "MY_PRIVKEY",
                       "GPG_PASSPHRASE", "JWT", "BEARER", "HMAC_SALT", "COOKIE", "NPM_AUTH", "CREDS", "SESSION"]
        for name in refused { XCTAssertTrue(NodeDecoder.credentialLike(name), name) }
        for name in ["TRANSLOADIT_KEY", "PWD", "CDN_BUCKET", "SITE_URL", "BUILD_NUMBER", "HOME", "KEYFRAME_INTERVAL"] {
            XCTAssertFalse(NodeDecoder.credentialLike(name), name)
        }
    }

    func testTheAuthKeyMayBeNamedLikeACredentialButNotBeOne() {
        let loader = ManifestLoader(environment: ["MY_AUTH_KEY": "k", "SIGNER_TOKEN": "t"])
        let job = "assemblies:\n  a: {inputs: [x], steps: {h: {robot: /file/hash, use: ':original'}}}\n"
        let named = loader.decode(Data("version: 1\nauth:\n  key: ${MY_AUTH_KEY}\n\(job)".utf8), file: "m.yml")
        XCTAssertEqual(named.value?.auth.key?.value, "k", "\(named.diagnostics)")
        let token = loader.decode(Data("version: 1\nauth:\n  key: ${SIGNER_TOKEN}\n  signer: {url: 'https://s.example/sign', token: '${SIGNER_TOKEN}'}\n\(job)".utf8), file: "m.yml")
        XCTAssertEqual(token.diagnostics.map(\.id), ["manifest.credential-variable"])
    }
}
