import Foundation
import Basics
import TestSupport
import Wire
import XCTest

/// `pipeline serve` as a separate process, driven by the official Transloadit Python SDK.
final class OfficialSDKTests: XCTestCase {
    private let key = "engine-test-key"
    private let secret = "engine-test-secret-1f2e"

    /// Runs `body` with `pipeline serve` on a fresh data folder and a folder for the test's files.
    private func withServe(_ body: (ServerProcess, TemporaryDirectory) throws -> Void) throws {
        let data = try TemporaryDirectory(prefix: "serve-data")
        defer { data.remove() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let server = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", data.path, "--auth-key", key, "--quiet",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { server.stop() }
        try body(server, files)
    }

    private func runSDK(
        _ service: String, secret: String, image: String, downloads: String, duration: Int = 300, mode: String = "tus"
    ) throws -> JSONValue {
        let python = try PythonPeers.require("python")
        let result = try ProcessRunner.run(python, [
            PackageRoot.path + "/Tests/EngineTests/Fixtures/sdk_resize.py", service, key, secret, image, downloads, String(duration), mode,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONValue.parse(Data(result.stdout.utf8))
    }

    func testSignedAssemblyResizesAnUploadedPNG() throws {
        try withServe { server, files in
            let image = try files.write("photo.png", data: TestImages.png(width: 640, height: 480))
            let report = try runSDK(server.url(""), secret: secret, image: image, downloads: files.path)
            XCTAssertEqual(report["ok"], .string("ASSEMBLY_COMPLETED"), report.serialized())
            XCTAssertEqual(report["error"], .null)
            XCTAssertEqual(report["result"]?["name"], .string("photo.png"))
            XCTAssertEqual(report["result"]?["meta"], .object(["width": .int(133), "height": .int(100)]))
            XCTAssertEqual(report["result"]?["original_id"], report["upload_ids"]?.arrayValue?.first, "results point at their upload")
            XCTAssertEqual(report["downloaded"]?["png"], .bool(true))
            XCTAssertEqual(report["downloaded"]?["width"], .int(133))
            XCTAssertEqual(report["downloaded"]?["height"], .int(100), "640 x 480 fitted into 200 x 100")
        }
    }

    func testMultipartUploadInTheCreatingRequest() throws {
        try withServe { server, files in
            let image = try files.write("tall.png", data: TestImages.png(width: 300, height: 900))
            let report = try runSDK(server.url(""), secret: secret, image: image, downloads: files.path, mode: "multipart")
            XCTAssertEqual(report["ok"], .string("ASSEMBLY_COMPLETED"), report.serialized())
            XCTAssertEqual(report["downloaded"]?["width"], .int(33))
            XCTAssertEqual(report["downloaded"]?["height"], .int(100))
        }
    }

    func testWrongSignatureAndExpiredSignatureAreRefused() throws {
        try withServe { server, files in
            let image = try files.write("photo.png", data: TestImages.png(width: 64, height: 64))
            let wrong = try runSDK(server.url(""), secret: "not-the-secret", image: image, downloads: files.path, mode: "multipart")
            XCTAssertEqual(wrong["error"], .string("INVALID_SIGNATURE"))
            let expired = try runSDK(server.url(""), secret: secret, image: image, downloads: files.path, duration: -60, mode: "multipart")
            XCTAssertEqual(expired["error"], .string("AUTH_EXPIRED"))
        }
    }

    func testTheNewestSDKDrivesTemplatesAndATemplateAssembly() throws {
        try withServe { server, files in
            let file = try files.write("a.txt", "hashed through a Template")
            // pytransloadit 2.x needs Python >= 3.12: it lives in the 3.13 environment beside litestar-tus.
            let result = try ProcessRunner.run(PackageRoot.path + "/.venv-tus/bin/python", [
                PackageRoot.path + "/Tests/EngineTests/Fixtures/sdk2_templates.py", server.url(""), key, secret, file,
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = try JSONValue.parse(Data(result.stdout.utf8))
            XCTAssertEqual(report["created"], .object(["ok": .string("TEMPLATE_CREATED"), "name": .string("sdk-template")]), report.serialized())
            XCTAssertEqual(report["fetched"], .string("sha1"))
            XCTAssertEqual(report["listed"], .array([.string("sdk-template")]))
            XCTAssertEqual(report["updated"], .string("TEMPLATE_UPDATED"))
            XCTAssertEqual(report["assembly"]?["ok"], .string(AssemblyStatusCode.completed.rawValue), report.serialized())
            XCTAssertEqual(report["assembly"]?["algorithm"], .string("sha256"), "the Assembly ran the updated Template")
            XCTAssertEqual(report["deleted"], .string("TEMPLATE_DELETED"))
        }
    }
}
