import Foundation
import Basics
import TestSupport
import XCTest

/// `pipeline serve` behind a real nginx with its default request buffering, as teams deploy it:
/// `upload`, `run` and the official Python SDK work with default settings, through a raised
/// body limit and through nginx's own 1m one.
final class BehindNginxTests: XCTestCase {
    private let key = "nginx-test-key"
    private let secret = "nginx-test-secret-0a1b"

    /// `pipeline serve` (its URLs naming nginx) and nginx in front of it.
    private struct Deployment {
        let serve: ServerProcess
        let nginx: NginxProxy
        let data: TemporaryDirectory

        func stop() {
            nginx.stop()
            serve.stop()
            data.remove()
        }
    }

    private func deploy(nginx server: String = "client_max_body_size 0;", serve extra: [String] = [], keyed: Bool = false) throws -> Deployment {
        let data = try TemporaryDirectory(prefix: "nginx-serve")
        let port = try NginxProxy.freePort()
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", data.path, "--public-url", "http://127.0.0.1:\(port)", "--quiet",
        ] + (keyed ? ["--auth-key", key] : []) + extra, environment: ["TRANSLOADIT_SECRET": secret])
        do {
            return Deployment(serve: serve, nginx: try NginxProxy(upstream: serve.port, port: port, server: server), data: data)
        } catch {
            serve.stop()
            data.remove()
            throw error
        }
    }

    /// Uploads a file of `size` bytes with `pipeline upload` through nginx; the bytes the engine stored.
    private func upload(size: Int, through deployment: Deployment, arguments: [String] = []) async throws -> (result: (status: Int32, stdout: String, stderr: String), stored: Data?, sent: Data) {
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        let path = try files.write("big.bin", data: content)
        let result = await CLIHarness.run([
            "upload", path, "--endpoint", deployment.nginx.url("/resumable/files/"), "--json", "--quiet", "--state-dir", files.path + "/state",
        ] + arguments)
        let url = (try? JSONValue.parse(Data(result.stdout.utf8)))?["uploads"]?.arrayValue?.first?["url"]?.stringValue
        let id = url?.split(separator: "/").last.map(String.init) ?? ""
        return (result, try? Data(contentsOf: URL(fileURLWithPath: deployment.data.path + "/uploads/" + id + ".bin")), content)
    }

    func testUploadThroughNginxWithDefaultSettings() async throws {
        let deployment = try deploy()
        defer { deployment.stop() }
        let outcome = try await upload(size: 12 << 20, through: deployment)
        XCTAssertEqual(outcome.result.status, 0, outcome.result.stderr)
        XCTAssertTrue(outcome.stored == outcome.sent, "the engine holds the bytes sent")
        XCTAssertTrue(outcome.result.stdout.contains(deployment.nginx.url("/resumable/files/")), "URLs name nginx: \(outcome.result.stdout)")
    }

    func testAnEngineOfferingTrailersBehindNginxStillGetsEveryUpload() async throws {
        // --trailers offers checksum trailers though nginx buffers bodies and drops them: the
        // engine refuses the first trailer it cannot see, and the client sends header checksums.
        let deployment = try deploy(serve: ["--trailers"])
        defer { deployment.stop() }
        let outcome = try await upload(size: 20 << 20, through: deployment)
        XCTAssertEqual(outcome.result.status, 0, outcome.result.stderr)
        XCTAssertTrue(outcome.stored == outcome.sent)
        let patches = deployment.nginx.accessLog.split(separator: "\n").filter { $0.contains("\"PATCH ") }
        XCTAssertEqual(patches.filter { $0.contains("\" 400 ") }.count, 1, "one refused trailer, then headers: \(patches)")
        XCTAssertGreaterThanOrEqual(patches.filter { $0.contains("\" 204 ") }.count, 2, "\(patches)")
    }

    func testUploadThroughNginxsOwnBodyLimitAdapts() async throws {
        let deployment = try deploy(nginx: "client_max_body_size 1m;")
        defer { deployment.stop() }
        let outcome = try await upload(size: 5 << 20, through: deployment)
        XCTAssertEqual(outcome.result.status, 0, outcome.result.stderr)
        XCTAssertTrue(outcome.stored == outcome.sent)
        XCTAssertTrue(deployment.nginx.accessLog.contains("\" 413 "), "nginx refused a body first: \(deployment.nginx.accessLog)")
    }

    func testRunThroughNginx() async throws {
        for server in ["client_max_body_size 0;", "client_max_body_size 1m;"] {
            let deployment = try deploy(nginx: server)
            defer { deployment.stop() }
            let directory = try TemporaryDirectory(prefix: "nginx-run")
            defer { directory.remove() }
            let big = Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 >> 3) })
            try directory.write("files/big.bin", data: big)
            try directory.write("files/small.bin", data: Data("small".utf8))
            try directory.write("pipeline.yml", """
                version: 1
                endpoint: \(deployment.nginx.url(""))
                auth:
                  key: \(key)
                assemblies:
                  hashes:
                    inputs: ["files/*.bin"]
                    batch: all
                    steps:
                      hash: {robot: /file/hash, use: ":original", algorithm: sha256}
                """)
            let result = await CLIHarness.run(["run", directory.path + "/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": secret])
            XCTAssertEqual(result.status, 0, "\(server) \(result.stderr)")
            let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
            let hashes = results["assemblies"]?.arrayValue?.first?["results"]?["hash"]?.arrayValue ?? []
            let expected = FileHashing.sha256(big)
            XCTAssertTrue(hashes.contains { $0["meta"]?["hash"]?.stringValue == expected }, "\(server): \(hashes)")
        }
    }

    func testTheOfficialSDKThroughNginx() throws {
        // The SDK's tus client does not adapt to a 413, so under nginx's own 1m limit it sends a file that fits.
        for (server, width) in [("client_max_body_size 0;", 1600), ("client_max_body_size 1m;", 320)] {
            let deployment = try deploy(nginx: server, keyed: true)
            defer { deployment.stop() }
            let files = try TemporaryDirectory()
            defer { files.remove() }
            let image = try files.write("photo.png", data: TestImages.png(width: width, height: width * 3 / 4))
            let python = try PythonPeers.require("python")
            let result = try ProcessRunner.run(python, [
                PackageRoot.path + "/Tests/EngineTests/Fixtures/sdk_resize.py", deployment.nginx.url(""), key, secret, image, files.path,
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = try JSONValue.parse(Data(result.stdout.utf8))
            XCTAssertEqual(report["ok"], .string("ASSEMBLY_COMPLETED"), "\(server): \(report.serialized())")
            XCTAssertEqual(report["downloaded"]?["png"], .bool(true), "\(server): \(report.serialized())")
        }
    }
}
