import Basics
@testable import Engine
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `/s3/store` and `/s3/import` on the engine against SeaweedFS, which checks every signature:
/// one server for the class, one engine per test.
final class S3RobotsTests: S3ServerTestCase {
    private var engines: [EngineTestServer] = []

    override func tearDown() {
        for engine in engines { engine.stop() }
        engines = []
    }

    /// An engine that knows the server's key as credentials `site`.
    private func engine(secret: String = S3TestServer.secret, loopback: Bool = true) throws -> (EngineTestServer, EngineClient) {
        let entry = StorageCredentials.Entry(
            credentials: S3Credentials(key: S3TestServer.key, secret: secret), bucket: S3TestServer.bucket, region: "us-east-1", host: try s3.host)
        let engine = try EngineTestServer(
            robotLimits: RobotLimits(importsFromLoopback: loopback), storage: StorageCredentials(file: ["site": entry], environment: [:]))
        engines.append(engine)
        return (engine, EngineClient(server: engine))
    }

    private func run(_ client: EngineClient, _ steps: [String: JSONValue], files: [(String, String, Data)]) async throws -> JSONValue {
        let created = try await client.create(steps: .object(steps), files: files)
        XCTAssertEqual(created.status, 200, created.body.serialized())
        return try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue), timeout: .seconds(60))
    }

    private func bucketClient() throws -> S3Client {
        let bucket = try XCTUnwrap(S3Bucket(name: S3TestServer.bucket, region: "us-east-1", host: try s3.host, pathStyle: true))
        return S3Client(bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: HTTPClient())
    }

    func testNamedCredentialsStoreTwelveMebibytesInThreePartsWithURLsAndSignedURLs() async throws {
        let (_, client) = try engine()
        let data = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 12 << 20))
        let status = try await run(client, [
            "stored": .object([
                "robot": .string("/s3/store"), "use": .string(":original"), "credentials": .string("site"),
                "path": .string("named/${assembly.id}/${file.url_name}"), "url_prefix": .string("http://cdn.example.com/media/"),
                "sign_urls_for": .int(600), "headers": .object(["Cache-Control": .string("max-age=60")]),
            ]),
        ], files: [("file", "big movie.bin", data)])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let id = try XCTUnwrap(status["assembly_id"]?.stringValue)
        let result = try XCTUnwrap(status["results"]?["stored"]?.arrayValue?.first)
        XCTAssertEqual(result["url"], .string("http://cdn.example.com/media/named/\(id)/big_movie.bin"))
        XCTAssertEqual(result["ssl_url"], .string("https://cdn.example.com/media/named/\(id)/big_movie.bin"))
        let object = try await bucketClient().head("named/\(id)/big_movie.bin")
        XCTAssertEqual(object?.size, Int64(12 << 20))
        XCTAssertTrue(object?.etag?.hasSuffix("-3") == true, "three parts: \(object?.etag ?? "none")")
        // The signed URL fetches the object with no credentials.
        let signed = try XCTUnwrap(result["signed_url"]?.stringValue)
        XCTAssertTrue(signed.hasPrefix(try s3.host + "/" + S3TestServer.bucket + "/named/"), signed)
        XCTAssertNotNil(result["signed_ssl_url"]?.stringValue)
        let fetched = try await HTTPClient().send(HTTPRequest(method: "GET", url: signed, maxResponseBytes: 64 << 20))
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.body, data)
    }

    func testInlineSecretsReachNoRecordStatusOrLog() async throws {
        let (engine, client) = try engine()
        let secretText = S3TestServer.secret
        let status = try await run(client, [
            "stored": .object([
                "robot": .string("/s3/store"), "use": .string(":original"), "bucket": .string(S3TestServer.bucket),
                "key": .string(S3TestServer.key), "secret": .string(secretText), "host": .string(try s3.host), "path": .string("inline/${file.name}"),
            ]),
        ], files: [("file", "a.txt", Data("inline".utf8))])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        XCTAssertEqual(status["results"]?["stored"]?.arrayValue?.first?["url"], .string(try s3.host + "/" + S3TestServer.bucket + "/inline/a.txt"))
        XCTAssertFalse(status.serialized().contains(secretText), "the status names the secret")
        XCTAssertTrue(status.serialized().contains(InlineSecrets.hidden))
        for file in try FileManager.default.subpathsOfDirectory(atPath: engine.data.path) {
            let path = engine.data.path + "/" + file
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            XCTAssertNil(bytes.range(of: Data(secretText.utf8)), "\(file) holds the secret")
        }
        XCTAssertFalse(engine.requests.joined().contains(secretText))
        let object = try await bucketClient().head("inline/a.txt")
        XCTAssertEqual(object?.size, 6)
    }

    func testAHostTheStepNamesIsHeldToTheImportAddressPolicy() async throws {
        // Named credentials' host is the operator's: trusted. A step's own host is not.
        let (_, client) = try engine(loopback: false)
        let status = try await run(client, [
            "named": .object(["robot": .string("/s3/store"), "use": .string(":original"), "credentials": .string("site")]),
        ], files: [("file", "a.txt", Data("x".utf8))])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let refused = try await run(client, [
            "inline": .object([
                "robot": .string("/s3/store"), "use": .string(":original"), "bucket": .string(S3TestServer.bucket),
                "key": .string(S3TestServer.key), "secret": .string(S3TestServer.secret), "host": .string(try s3.host),
            ]),
        ], files: [("file", "a.txt", Data("x".utf8))])
        XCTAssertEqual(refused["error"], .string("STORE_ERROR"), refused.serialized())
        XCTAssertTrue(refused["message"]?.stringValue?.contains("loopback") == true, refused.serialized())
    }

    func testAWrongSecretFailsTheStepWithoutNamingIt() async throws {
        let wrong = "wrong-secret-0123456789"
        let (_, client) = try engine(secret: wrong)
        let status = try await run(client, [
            "stored": .object(["robot": .string("/s3/store"), "use": .string(":original"), "credentials": .string("site")]),
        ], files: [("file", "a.txt", Data("x".utf8))])
        XCTAssertEqual(status["error"], .string("STORE_ERROR"), status.serialized())
        let message = status["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("SignatureDoesNotMatch"), message)
        XCTAssertFalse(status.serialized().contains(wrong))
    }

    func testUnknownCredentialsWithAHostSayWhereTheEngineLooks() async throws {
        let (_, client) = try engine()
        let status = try await run(client, [
            "stored": .object(["robot": .string("/s3/store"), "use": .string(":original"), "credentials": .string("other-site"), "host": .string(try s3.host)]),
        ], files: [("file", "a.txt", Data("x".utf8))])
        XCTAssertEqual(status["error"], .string("INVALID_STEP_PARAMETER"), status.serialized())
        XCTAssertTrue(status["message"]?.stringValue?.contains("PIPELINE_CREDENTIALS_OTHER_SITE_KEY") == true, status.serialized())
    }

    func testImportTakesAFileOrTheFilesBelowAPath() async throws {
        let (_, client) = try engine()
        let bucket = try bucketClient()
        try await bucket.putData(Data("one".utf8), key: "import/a.txt")
        try await bucket.putData(Data("two".utf8), key: "import/b.txt")
        try await bucket.putData(Data("deep".utf8), key: "import/sub/c.txt")
        let status = try await run(client, [
            "folder": .object(["robot": .string("/s3/import"), "credentials": .string("site"), "path": .string("import/")]),
            "deep": .object(["robot": .string("/s3/import"), "credentials": .string("site"), "path": .string("import"), "recursive": .bool(true)]),
            "one": .object(["robot": .string("/s3/import"), "credentials": .string("site"), "path": .string("import/sub/c.txt")]),
            "minio": .object([
                "robot": .string("/minio/import"), "host": .string(try s3.host), "bucket": .string(S3TestServer.bucket),
                "key": .string(S3TestServer.key), "secret": .string(S3TestServer.secret), "path": .string("import/sub/"),
            ]),
        ], files: [])
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let names = { (step: String) in status["results"]?[step]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [] }
        XCTAssertEqual(names("folder"), ["a.txt", "b.txt"])
        XCTAssertEqual(names("deep"), ["a.txt", "b.txt", "c.txt"])
        XCTAssertEqual(names("one"), ["c.txt"])
        XCTAssertEqual(names("minio"), ["c.txt"], "inline credentials at the step's host")
        XCTAssertEqual(status["results"]?["one"]?.arrayValue?.first?["size"], .int(4))
    }

    func testNamedCredentialsComeFromTheEnvironment() {
        let storage = StorageCredentials(environment: [
            "PIPELINE_CREDENTIALS_SITE_ASSETS_KEY": "k", "PIPELINE_CREDENTIALS_SITE_ASSETS_SECRET": "hidden-secret",
            "PIPELINE_CREDENTIALS_SITE_ASSETS_BUCKET": "b", "PIPELINE_CREDENTIALS_SITE_ASSETS_REGION": "eu-west-1",
            "PIPELINE_CREDENTIALS_SITE_ASSETS_HOST": "http://127.0.0.1:9000", "PIPELINE_CREDENTIALS_HALF_KEY": "k",
        ])
        let entry = storage.entry("site-assets")
        XCTAssertEqual(entry?.credentials, S3Credentials(key: "k", secret: "hidden-secret"))
        XCTAssertEqual(entry?.bucket, "b")
        XCTAssertEqual(entry?.region, "eu-west-1")
        XCTAssertEqual(entry?.host, "http://127.0.0.1:9000")
        XCTAssertNil(storage.entry("half"), "a key without its secret is no credentials")
        XCTAssertNil(storage.entry("other"))
        XCTAssertFalse(storage.description.contains("hidden-secret"))
        XCTAssertTrue(storage.description.contains("SITE_ASSETS"), storage.description)
    }

    func testACredentialsFileIsCheckedWithoutQuotingIt() throws {
        let good = try JSONValue.parse(Data(#"{"site": {"key": "k", "secret": "s", "bucket": "b", "host": "http://127.0.0.1:1"}}"#.utf8))
        XCTAssertEqual(try StorageCredentials.parse(good, file: "c.json")["site"]?.bucket, "b")
        let bad = try JSONValue.parse(Data(#"{"site": {"key": "k", "secrt": "leaked-value"}}"#.utf8))
        XCTAssertThrowsError(try StorageCredentials.parse(bad, file: "c.json")) { error in
            XCTAssertFalse("\(error)".contains("leaked-value"), "\(error)")
            XCTAssertTrue("\(error)".contains("secrt"), "\(error)")
        }
    }
}
