import Foundation
import Basics
import TestSupport
import XCTest

/// The whole chain as separate processes: `pipeline run` asks `pipeline signer` for every
/// signature and sends the Assemblies to `pipeline serve`, which holds the same secret. The
/// runner's environment has a signer token and no secret.
final class SignerEndToEndTests: XCTestCase {
    func testRunSignsThroughTheSignerAndNeverSeesTheSecret() async throws {
        let secret = "e2e-secret-77aa", token = "e2e-token-88bb"
        let directory = try TemporaryDirectory(prefix: "signer-e2e")
        defer { directory.remove() }
        try directory.write("signer/policy.yml", """
            version: 1
            auth_key: test-key
            max_expires_in: 1h
            robots:
              /image/resize:
                width: {type: integer, max: 1000}
                resize_strategy: {enum: [fit]}
            """)
        try directory.write("signer/callers.yml", """
            version: 1
            callers:
              - name: ci
                token_sha256: \(FileHashing.sha256(Data(token.utf8)))
            """)
        let signer = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "signer", "--policy", directory.path + "/signer/policy.yml", "--tokens", directory.path + "/signer/callers.yml",
            "--port", "0", "--audit-log", directory.path + "/signer/audit.jsonl",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { signer.stop() }
        let engineData = try TemporaryDirectory(prefix: "serve")
        defer { engineData.remove() }
        let engine = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", engineData.path, "--auth-key", "test-key", "--quiet",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { engine.stop() }

        try directory.write("site/images/a.png", data: TestImages.png(width: 300, height: 200))
        try directory.write("site/images/b.png", data: TestImages.png(width: 200, height: 300))
        try directory.write("site/pipeline.yml", """
            version: 1
            endpoint: \(engine.url(""))
            auth:
              key: test-key
              expires_in: 10m
              signer:
                url: \(signer.url("/sign"))
                token: ${SIGNER_TOKEN}
            results: results.json
            assemblies:
              thumbs:
                inputs: [images/*.png]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 100, resize_strategy: fit}
            """)
        var environment = ProcessInfo.processInfo.environment
        environment["TRANSLOADIT_SECRET"] = nil
        environment["SIGNER_TOKEN"] = token
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["run", directory.path + "/site/pipeline.yml"]
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stdout.hasPrefix("Run: 2 completed"), stdout)

        let audit = try String(contentsOfFile: directory.path + "/signer/audit.jsonl", encoding: .utf8)
        XCTAssertEqual(audit.split(separator: "\n").count, 2, "one signature per Assembly")
        for file in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            guard let data = FileManager.default.contents(atPath: directory.path + "/" + file) else { continue }
            XCTAssertNil(data.range(of: Data(secret.utf8)), "the secret is in \(file)")
            XCTAssertNil(data.range(of: Data(token.utf8)), "the token is in \(file)")
        }

        // Params the policy refuses are never signed: the run fails with the signer's reasons.
        let refused = try String(contentsOfFile: directory.path + "/site/pipeline.yml", encoding: .utf8)
            .replacingOccurrences(of: "width: 100", with: "width: 5000")
        try directory.write("site/pipeline.yml", refused)
        let denied = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", directory.path + "/site/pipeline.yml"], environment: ["SIGNER_TOKEN": token])
        XCTAssertEqual(denied.status, 1)
        XCTAssertTrue(denied.stderr.contains("SIGNING_FAILED"), denied.stderr)
        XCTAssertTrue(denied.stderr.contains("HTTP 403"), denied.stderr)
    }

    /// A manifest can name the signer's policy by URL: `plan` checks the very rules it enforces.
    func testASignerForAnyAuthKeySaysSoAtStartUp() throws {
        let directory = try TemporaryDirectory(prefix: "signer-any-key")
        defer { directory.remove() }
        let policy = try directory.write("policy.yml", "version: 1\nrobots:\n  /file/hash: {}\n")
        let callers = try directory.write("callers.yml", "version: 1\ncallers:\n  - name: ci\n    token_sha256: \(FileHashing.sha256(Data("t".utf8)))\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["signer", "--policy", policy, "--tokens", callers, "--port", "0"]
        process.environment = ["TRANSLOADIT_SECRET": "s"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n"), Date() < deadline {
            text += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("params for any key a caller sends are signed"), text)
    }

    func testPlanChecksAgainstTheSignersPolicyByURL() async throws {
        let directory = try TemporaryDirectory(prefix: "policy-url")
        defer { directory.remove() }
        try directory.write("policy.yml", "version: 1\nrobots:\n  /image/resize:\n    width: {type: integer, max: 400}\n")
        try directory.write("callers.yml", "version: 1\ncallers: []\n")
        let signer = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "signer", "--policy", directory.path + "/policy.yml", "--tokens", directory.path + "/callers.yml", "--port", "0",
        ], environment: ["TRANSLOADIT_SECRET": "s"])
        defer { signer.stop() }
        try directory.write("a.png", data: TestImages.png(width: 10, height: 10))
        try directory.write("pipeline.yml", """
            version: 1
            policy: \(signer.url("/policy"))
            assemblies:
              thumbs:
                inputs: [a.png]
                steps:
                  thumb: {robot: /image/resize, width: 5000}
            """)
        let result = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("must be at most 400, found 5000"), result.stderr)
        XCTAssertTrue(result.stderr.contains("note: policy: \(signer.url("/policy"))"), result.stderr)
    }

    /// With --tls-cert and --tls-key the signer speaks HTTPS (GnuTLS inside libmicrohttpd).
    func testSignerServesHTTPS() async throws {
        let directory = try TemporaryDirectory(prefix: "signer-tls")
        defer { directory.remove() }
        let made = try ProcessRunner.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory.path + "/key.pem", "-out", directory.path + "/cert.pem",
            "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        try directory.write("policy.yml", "version: 1\nrobots: {}\n")
        try directory.write("callers.yml", "version: 1\ncallers: []\n")
        let arguments = [
            "signer", "--policy", directory.path + "/policy.yml", "--tokens", directory.path + "/callers.yml", "--port", "0",
            "--tls-cert", directory.path + "/cert.pem", "--tls-key", directory.path + "/key.pem",
        ]
        chmod(directory.path + "/key.pem", 0o644)
        let loose = try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments, environment: ["TRANSLOADIT_SECRET": "s"])
        XCTAssertEqual(loose.status, 1)
        XCTAssertTrue(loose.stderr.contains("may be read by others"), loose.stderr)

        chmod(directory.path + "/key.pem", 0o600)
        let signer = try ServerProcess(ProcessRunner.pipelineExecutable, arguments, environment: ["TRANSLOADIT_SECRET": "s"])
        defer { signer.stop() }
        let https = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", directory.path + "/cert.pem", "https://127.0.0.1:\(signer.port)/healthz"])
        XCTAssertEqual(https.stdout, #"{"ok":true}"#, https.stderr)
        let plain = try ProcessRunner.run("/usr/bin/curl", ["-s", "-m", "5", "http://127.0.0.1:\(signer.port)/healthz"])
        XCTAssertNotEqual(plain.status, 0, "plain HTTP is not answered on an HTTPS port")

        // A private CA: refused with a hint by default, trusted with --ca-cert or SSL_CERT_FILE.
        try directory.write("params.json", #"{"steps": {}}"#)
        let sign = ["sign", "--params", directory.path + "/params.json", "--signer", "url", "--url", "https://127.0.0.1:\(signer.port)/sign",
                    "--token-env", "SIGNER_TOKEN", "--key", "k"]
        let environment = ["SIGNER_TOKEN": "not-a-known-token"]
        let untrusted = try ProcessRunner.run(ProcessRunner.pipelineExecutable, sign, environment: environment)
        XCTAssertEqual(untrusted.status, 1)
        XCTAssertTrue(untrusted.stderr.contains("certificate is not trusted"), untrusted.stderr)
        XCTAssertTrue(untrusted.stderr.contains("--ca-cert"), untrusted.stderr)
        XCTAssertEqual(untrusted.stderr.components(separatedBy: "https://127.0.0.1:\(signer.port)/sign").count, 2, "the request is named once: \(untrusted.stderr)")
        for trusted in [
            try ProcessRunner.run(ProcessRunner.pipelineExecutable, sign + ["--ca-cert", directory.path + "/cert.pem"], environment: environment),
            try ProcessRunner.run(ProcessRunner.pipelineExecutable, sign, environment: environment.merging(["SSL_CERT_FILE": directory.path + "/cert.pem", "CURL_CA_BUNDLE": ""]) { $1 }),
        ] {
            XCTAssertEqual(trusted.status, 1)
            XCTAssertTrue(trusted.stderr.contains("HTTP 401"), "TLS passed and the signer answered: \(trusted.stderr)")
            XCTAssertFalse(trusted.stderr.contains("not-a-known-token"), trusted.stderr)
        }

        // An untrusted certificate is final: a run reports it at once instead of retrying.
        try directory.write("site/files/a.txt", "a")
        try directory.write("site/pipeline.yml", """
            version: 1
            endpoint: https://127.0.0.1:\(signer.port)
            auth: {key: k}
            assemblies:
              a: {inputs: [files/a.txt], steps: {h: {robot: /file/hash, use: ":original"}}}
            """)
        let started = ContinuousClock.now
        let run = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", directory.path + "/site/pipeline.yml"], environment: ["TRANSLOADIT_SECRET": "s"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("certificate is not trusted"), run.stderr)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }
}

/// Secretless CI end to end: `pipeline run` obtains a GitHub Actions identity token from the
/// job's token endpoint (a test provider over HTTPS), `pipeline signer` verifies it with the
/// provider's keys (found by discovery) and signs; no stored credential anywhere.
final class IdentityTokenEndToEndTests: XCTestCase {
    func testRunAndSignWithAGitHubIdentityTokenAndNoSecret() async throws {
        let secret = "oidc-secret-31cc", requestToken = "request-token-77dd"
        let idp = try TestIdentityProvider()
        defer { idp.stop() }
        let directory = try TemporaryDirectory(prefix: "oidc-e2e")
        defer { directory.remove() }
        try directory.write("signer/policy.yml", "version: 1\nauth_key: test-key\nmax_expires_in: 1h\nrobots:\n  /image/resize: {width: {type: integer, max: 1000}}\n")
        try directory.write("signer/callers.yml", """
            version: 1
            providers:
              - name: github
                issuer: \(idp.issuer)
                audience: pipeline-signer
            identities:
              - name: main-branch
                provider: github
                claims: {repository: acme/site, ref: refs/heads/main}
            """)
        let signer = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "signer", "--policy", directory.path + "/signer/policy.yml", "--tokens", directory.path + "/signer/callers.yml",
            "--port", "0", "--audit-log", directory.path + "/signer/audit.jsonl", "--ca-cert", idp.certificate, "--endpoint", "none",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { signer.stop() }
        let engineData = try TemporaryDirectory(prefix: "serve")
        defer { engineData.remove() }
        let engine = try ServerProcess(ProcessRunner.pipelineExecutable, [
            "serve", "--port", "0", "--data-dir", engineData.path, "--auth-key", "test-key", "--quiet",
        ], environment: ["TRANSLOADIT_SECRET": secret])
        defer { engine.stop() }

        let identityToken = try idp.mint(["aud": .string("pipeline-signer"), "sub": .string("repo:acme/site:ref:refs/heads/main"),
                                          "repository": .string("acme/site"), "ref": .string("refs/heads/main")])
        try idp.write("request-token", requestToken)
        try idp.write("token-pipeline-signer.jwt", identityToken)
        try directory.write("site/images/a.png", data: TestImages.png(width: 300, height: 200))
        try directory.write("site/pipeline.yml", """
            version: 1
            endpoint: \(engine.url(""))
            auth:
              key: test-key
              signer:
                url: \(signer.url("/sign"))
                token: {oidc: github, audience: pipeline-signer}
            results: results.json
            assemblies:
              thumbs:
                inputs: [images/*.png]
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 100}
            """)
        let environment = [
            "ACTIONS_ID_TOKEN_REQUEST_URL": idp.issuer + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": requestToken,
            "TRANSLOADIT_SECRET": "",
        ]
        let run = try ProcessRunner.run(
            ProcessRunner.pipelineExecutable, ["run", "--ca-cert", idp.certificate, directory.path + "/site/pipeline.yml"], environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr + ((try? String(contentsOfFile: directory.path + "/site/results.json", encoding: .utf8)) ?? ""))
        XCTAssertTrue(run.stdout.hasPrefix("Run: 1 completed"), run.stdout)

        let paramsFile = try directory.write("params.json", #"{"steps": {}}"#)
        let signed = try ProcessRunner.run(ProcessRunner.pipelineExecutable, [
            "sign", "--params", paramsFile, "--signer", "url", "--url", signer.url("/sign"), "--token-oidc", "github", "--audience", "pipeline-signer", "--key", "test-key",
            "--ca-cert", idp.certificate,
        ], environment: environment)
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertTrue(signed.stdout.contains("sha384:"), signed.stdout)

        // Without the job's permission there is no token to send: the run says how to get one.
        let denied = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["run", "--force", directory.path + "/site/pipeline.yml"],
                                           environment: ["ACTIONS_ID_TOKEN_REQUEST_URL": ""])
        XCTAssertEqual(denied.status, 1)
        XCTAssertTrue(denied.stderr.contains("id-token: write"), denied.stderr)

        let audit = try String(contentsOfFile: directory.path + "/signer/audit.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(audit.count, 2)
        let entry = try JSONValue.parse(Data(audit[0].utf8))
        XCTAssertEqual(entry["caller"], .string("main-branch"))
        XCTAssertEqual(entry["provider"], .string("github"))
        XCTAssertEqual(entry["subject"], .string("repo:acme/site:ref:refs/heads/main"))
        for file in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            guard let data = FileManager.default.contents(atPath: directory.path + "/" + file) else { continue }
            XCTAssertNil(data.range(of: Data(identityToken.split(separator: ".")[2].utf8)), "the identity token is in \(file)")
            XCTAssertNil(data.range(of: Data(requestToken.utf8)), "the request token is in \(file)")
        }
    }
}
