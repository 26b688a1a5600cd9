import Crypto
import Foundation
import TestSupport
import XCTest

/// `make install-files` and `make uninstall` with a PREFIX (what `make install` does after its
/// release build), and the manual page they install.
final class InstallTests: XCTestCase {
    func testInstallPutsEverythingInItsPlaceAndUninstallRemovesIt() throws {
        let prefix = try TemporaryDirectory(prefix: "prefix")
        defer { prefix.remove() }
        let make = ["make", "--no-print-directory", "PREFIX=" + prefix.path, "PIPELINE_BIN=" + ProcessRunner.pipelineExecutable]
        let installed = try ProcessRunner.run("/usr/bin/env", make + ["install-files"], in: PackageRoot.path)
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let expected = [
            "bin/pipeline", "share/man/man1/pipeline.1", "share/bash-completion/completions/pipeline", "share/zsh/site-functions/_pipeline",
            "share/fish/vendor_completions.d/pipeline.fish", "share/pipeline/schemas/manifest.schema.json", "share/pipeline/schemas/policy.schema.json",
        ]
        for path in expected { XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.path + "/" + path), path) }
        let version = try ProcessRunner.run(prefix.path + "/bin/pipeline", ["--version"])
        XCTAssertTrue(version.stdout.hasPrefix("pipeline "), version.stdout)

        let page = try String(contentsOfFile: prefix.path + "/share/man/man1/pipeline.1", encoding: .utf8)
        XCTAssertTrue(page.hasPrefix(".TH PIPELINE 1 \"20"), "the page is dated: \(page.prefix(60))")
        XCTAssertTrue(page.contains(".B TRANSLOADIT_ENDPOINT"), "every variable the tool reads is listed")
        XCTAssertTrue(page.contains("130 \\fBrun\\fR interrupted"), "exit code 130 is documented")
        for command in ["init", "validate", "plan", "diff", "run", "serve", "signer", "completions"] {
            XCTAssertTrue(page.contains(".SS pipeline \(command)"), "the page has \(command)")
        }
        XCTAssertTrue(page.contains(".B \\-\\-force"), "options are listed with roff minus signs")
        XCTAssertTrue(page.contains(#".BI "\-\-kind " "KIND""#), "a value name is set apart from its option")
        for line in page.split(separator: "\n") where line.hasPrefix(".") {
            XCTAssertTrue(line.range(of: #"^\.(TH|SH|SS|TP|PP|RS|RE|nf|fi|B|I|BR|BI)( |$)"#, options: .regularExpression) != nil, "only known requests: \(line)")
        }

        let removed = try ProcessRunner.run("/usr/bin/env", make + ["uninstall"], in: PackageRoot.path)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        let left = (FileManager.default.enumerator(atPath: prefix.path)?.allObjects as? [String] ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix.path + "/" + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        XCTAssertEqual(left, [], "uninstall removes every installed file")
    }

    /// The action's install step (scripts/action-install.sh) with `curl`, `apt-get` and `sudo`
    /// replaced by stand-ins that log their arguments: what it refuses, it refuses before any download.
    func testTheActionInstallChecksItsDigestAndNeverDowngrades() throws {
        let directory = try TemporaryDirectory(prefix: "action-install")
        defer { directory.remove() }
        let log = directory.path + "/calls.log"
        let deb = "package bytes\n"
        let digest = SHA256.hex(deb)
        for (name, body) in [
            ("curl", "echo \"curl $*\" >> \(log)\nout=\"\"; while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=\"$2\"; shift; done\nprintf '\(deb.replacingOccurrences(of: "\n", with: "\\n"))' > \"$out\""),
            ("apt-get", "echo \"apt-get $*\" >> \(log)"),
            ("pipeline", "echo 'pipeline 0.1.0'"),
        ] {
            let path = try directory.write("bin/" + name, "#!/bin/sh\n" + body + "\n")
            chmod(path, 0o755)
        }
        let script = PackageRoot.path + "/scripts/action-install.sh"
        func install(url: String, sha256: String) throws -> ProcessResult {
            try? FileManager.default.removeItem(atPath: log)
            return try ProcessRunner.run("/bin/bash", [script], environment: [
                "PATH": directory.path + "/bin:/usr/bin:/bin", "PIPELINE_DEB_URL": url, "PIPELINE_DEB_SHA256": sha256,
                "RUNNER_TEMP": directory.path, "GITHUB_OUTPUT": "",
            ])
        }
        func calls() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        // A digest of another file, then a line sha256sum would skip: one value or nothing.
        let smuggled = try install(url: "https://releases.example/pipeline.deb", sha256: SHA256.hex("") + "  /etc/hostname\n#")
        XCTAssertEqual(smuggled.status, 1, smuggled.stdout + smuggled.stderr)
        XCTAssertTrue(smuggled.stdout.contains("sha256 must be exactly 64 hexadecimal digits"), smuggled.stdout)
        XCTAssertEqual(calls(), "", "nothing fetched or installed")

        let plain = try install(url: "http://releases.example/pipeline.deb", sha256: "")
        XCTAssertEqual(plain.status, 1)
        XCTAssertTrue(plain.stdout.contains("deb-url is plain http://"), plain.stdout)
        XCTAssertEqual(calls(), "")

        for (url, expected) in [
            ("HTTP://releases.example/pipeline.deb", "deb-url is plain http://"), ("file:///etc/hostname", "not 'file:///etc/hostname'"),
            ("no/such/pipeline.deb", "neither an http(s) URL nor a file on the runner"),
            ("x\n::error::injected://y", "not 'x?::error::injected://y'"),
        ] {
            let refused = try install(url: url, sha256: "")
            XCTAssertEqual(refused.status, 1, url)
            XCTAssertTrue(refused.stdout.contains(expected), "\(url): \(refused.stdout)")
            XCTAssertEqual(calls(), "", url)
            XCTAssertFalse(refused.stdout.split(separator: "\n").contains { $0.hasPrefix("::error::injected") }, "an input starts no workflow command")
        }

        let wrong = try install(url: "https://releases.example/pipeline.deb", sha256: String(repeating: "a", count: 64))
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stdout.contains("not installed"), wrong.stdout)
        XCTAssertFalse(calls().contains("apt-get install"), calls())

        let good = try install(url: "https://releases.example/pipeline.deb", sha256: digest.uppercased())
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(calls().contains("--proto =http,https --proto-redir =https "), "an https download is never redirected to http: \(calls())")
        XCTAssertTrue(calls().contains("apt-get install"), calls())
    }
}
