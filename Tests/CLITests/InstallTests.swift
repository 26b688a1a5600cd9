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
}
