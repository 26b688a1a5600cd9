import Foundation
import Basics
import TestSupport
import XCTest

/// HTTPS through a private CA named only by `SSL_CERT_FILE` (or `SSL_CERT_DIR`), as OpenSSL,
/// Python and git honour them, even where the image also sets `CURL_CA_BUNDLE` to the system's.
final class PrivateCATests: XCTestCase {
    private let key = "ca-test-key"
    private let secret = "ca-test-secret-77"

    /// A self-signed certificate for 127.0.0.1 (its own CA), in a folder of its own.
    private func certificate() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "private-ca")
        let made = try ProcessRunner.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder.path + "/key.pem", "-out", folder.path + "/cert.pem",
            "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        chmod(folder.path + "/key.pem", 0o600)
        return folder
    }

    func testUploadRunSignAndPolicyTrustSSLCertFile() async throws {
        let ca = try certificate()
        defer { ca.remove() }
        let data = try TemporaryDirectory(prefix: "private-ca-serve")
        defer { data.remove() }
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", data.path, "--auth-key", key, "--quiet",
            "--tls-cert", ca.path + "/cert.pem", "--tls-key", ca.path + "/key.pem",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { serve.stop() }
        let project = try TemporaryDirectory(prefix: "private-ca-project")
        defer { project.remove() }
        let policy = try project.write("served-policy.yml", "version: 1\nrobots:\n  /file/hash:\n    algorithm: {enum: [sha256]}\n")
        let signer = try ServerProcess("/usr/bin/env", [
            "python3", PackageRoot.path + "/Tests/CLITests/Fixtures/tls_signer.py", ca.path + "/cert.pem", ca.path + "/key.pem", secret, policy,
        ])
        defer { signer.stop() }
        let file = try project.write("files/a.bin", data: Data(repeating: 3, count: 300_000))
        try project.write("pipeline.yml", """
            version: 1
            endpoint: https://127.0.0.1:\(serve.port)
            policy: https://127.0.0.1:\(signer.port)/policy
            auth:
              key: \(key)
              signer: {url: "https://127.0.0.1:\(signer.port)/sign", token: "${SIGNER_TOKEN}"}
            assemblies:
              hashes:
                inputs: ["files/*.bin"]
                steps:
                  hash: {robot: /file/hash, use: ":original", algorithm: sha256}
            """)
        // As many images set it: CURL_CA_BUNDLE names the system's bundle, which must not hide the private CA.
        let environment = ["SSL_CERT_FILE": ca.path + "/cert.pem", "CURL_CA_BUNDLE": "/etc/ssl/certs/ca-certificates.crt", "SIGNER_TOKEN": "t"]

        let plan = await CLIHarness.run(["plan", project.path + "/pipeline.yml"], environment: environment)
        XCTAssertEqual(plan.status, 0, "the policy is fetched over https: \(plan.stderr)")
        let run = await CLIHarness.run(["run", project.path + "/pipeline.yml"], environment: environment)
        XCTAssertEqual(run.status, 0, "sign, create, upload and poll over https: \(run.stderr)")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        XCTAssertEqual(results["assemblies"]?.arrayValue?.first?["status"], .string("ASSEMBLY_COMPLETED"))
        let upload = await CLIHarness.run([
            "upload", file, "--endpoint", "https://127.0.0.1:\(serve.port)/resumable/files/", "--quiet", "--state-dir", project.path + "/state",
        ], environment: environment)
        XCTAssertNotEqual(upload.status, 0, "an engine with --auth-key takes uploads only for its Assemblies")
        XCTAssertTrue(upload.stderr.contains("403"), "the request got through TLS to the engine's refusal: \(upload.stderr)")

        // Without the variable, the same requests are refused on the certificate.
        let untrusted = await CLIHarness.run(["run", project.path + "/pipeline.yml", "--force"], environment: ["SIGNER_TOKEN": "t"])
        XCTAssertEqual(untrusted.status, 1)
        XCTAssertTrue(untrusted.stderr.contains("not trusted"), untrusted.stderr)
    }

    func testAFolderNamedBySSLCertDirIsTrustedToo() async throws {
        let ca = try certificate()
        defer { ca.remove() }
        let certs = ca.path + "/certs"
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ca.path + "/cert.pem", toPath: certs + "/private-ca.pem")
        let hashed = try ProcessRunner.run("/usr/bin/openssl", ["rehash", certs])
        XCTAssertEqual(hashed.status, 0, hashed.stdout + hashed.stderr)
        let data = try TemporaryDirectory(prefix: "private-ca-serve")
        defer { data.remove() }
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", data.path, "--quiet", "--tls-cert", ca.path + "/cert.pem", "--tls-key", ca.path + "/key.pem",
        ])
        defer { serve.stop() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let file = try files.write("a.bin", data: Data(repeating: 9, count: 100_000))
        let upload = await CLIHarness.run([
            "upload", file, "--endpoint", "https://127.0.0.1:\(serve.port)/resumable/files/", "--quiet", "--state-dir", files.path + "/state",
        ], environment: ["SSL_CERT_DIR": certs])
        XCTAssertEqual(upload.status, 0, upload.stderr + upload.stdout)
    }
}
