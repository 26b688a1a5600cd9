import Basics
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// `/s3/store` steps on both engines against SeaweedFS (which checks signatures): the embedded
/// engine of `endpoint: local` with `PIPELINE_CREDENTIALS_*` variables, and `pipeline serve
/// --credentials FILE`. One S3 server for the class.
final class StorageEndToEndTests: S3ServerTestCase {

    private func project(endpoint: String, folder: String) throws -> TemporaryDirectory {
        let project = try TemporaryDirectory(prefix: "storage-project")
        try project.write("files/a.txt", "alpha")
        try project.write("files/b.txt", "beta")
        try project.write("pipeline.yml", """
            version: 1
            endpoint: \(endpoint)
            auth:
              key: local
            assemblies:
              texts:
                inputs: ["files/*.txt"]
                batch: all
                steps:
                  stored: {robot: /s3/store, use: ":original", credentials: site-assets, path: "\(folder)/${file.name}", url_prefix: "https://cdn.example.com/"}
            """)
        return project
    }

    private func stored(_ key: String) async throws -> S3Object? {
        let s3 = try self.s3
        let bucket = try XCTUnwrap(S3Bucket(name: S3TestServer.bucket, region: "us-east-1", host: s3.host, pathStyle: true))
        return try await S3Client(bucket: bucket, credentials: S3Credentials(key: S3TestServer.key, secret: S3TestServer.secret), http: HTTPClient()).head(key)
    }

    private func urls(_ project: TemporaryDirectory) throws -> [String] {
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        return (results["assemblies"]?.arrayValue?.first?["results"]?["stored"]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue }.sorted()
    }

    func testTheEmbeddedEngineStoresWithCredentialsFromTheEnvironment() async throws {
        let s3 = try self.s3
        let project = try project(endpoint: "local", folder: "embedded")
        defer { project.remove() }
        let manifest = project.path + "/pipeline.yml"
        let emulated = await CLIHarness.run(["plan", manifest])
        XCTAssertTrue(emulated.stderr.contains("exports/ instead"), emulated.stderr)
        let environment = [
            "PIPELINE_CREDENTIALS_SITE_ASSETS_KEY": S3TestServer.key, "PIPELINE_CREDENTIALS_SITE_ASSETS_SECRET": S3TestServer.secret,
            "PIPELINE_CREDENTIALS_SITE_ASSETS_BUCKET": S3TestServer.bucket, "PIPELINE_CREDENTIALS_SITE_ASSETS_HOST": s3.host,
        ]
        let plan = await CLIHarness.run(["plan", manifest], environment: environment)
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertFalse(plan.stderr.contains("exports/ instead"), "the warning no longer applies: \(plan.stderr)")
        let run = await CLIHarness.run(["run", manifest], environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try urls(project), ["https://cdn.example.com/embedded/a.txt", "https://cdn.example.com/embedded/b.txt"])
        let object = try await stored("embedded/b.txt")
        XCTAssertEqual(object?.size, 4)
        XCTAssertFalse(run.stderr.contains(S3TestServer.secret))
    }

    func testServeStoresWithCredentialsFromItsFile() async throws {
        let s3 = try self.s3
        let data = try TemporaryDirectory(prefix: "storage-serve")
        defer { data.remove() }
        let file = try data.write("../storage-credentials-\(UUID().uuidString).json", """
            {"site-assets": {"key": "\(S3TestServer.key)", "secret": "\(S3TestServer.secret)", "bucket": "\(S3TestServer.bucket)", "host": "\(s3.host)"}}
            """)
        defer { unlink(file) }
        let log = data.path + "/../serve-\(UUID().uuidString).log"
        defer { unlink(log) }
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path + "/engine", "--credentials", file], errors: log)
        defer { serve.stop() }
        let project = try project(endpoint: serve.url(""), folder: "served")
        defer { project.remove() }
        let run = await CLIHarness.run(["run", project.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "unused-secret"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try urls(project), ["https://cdn.example.com/served/a.txt", "https://cdn.example.com/served/b.txt"])
        let object = try await stored("served/a.txt")
        XCTAssertEqual(object?.size, 5)
        serve.stop()
        XCTAssertFalse(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(S3TestServer.secret))
    }

    func testABrokenCredentialsFileStopsServeWithoutQuotingIt() throws {
        let data = try TemporaryDirectory(prefix: "storage-serve-bad")
        defer { data.remove() }
        let file = try data.write("credentials.json", #"{"site": {"key": "k", "secret": 42, "note": "s3cr3t-value"}}"#)
        let result = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["serve", "--port", "0", "--data-dir", data.path + "/engine", "--credentials", file])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("credentials file"), result.stderr)
        XCTAssertFalse(result.stderr.contains("s3cr3t-value"), result.stderr)
    }
}
