import Foundation
import TestSupport
import XCTest

/// `pipeline serve --host ::1`, as docs/engine.md shows it: the engine on the IPv6 loopback,
/// its URLs bracketed, uploads taken there.
final class ServeIPv6Tests: XCTestCase {
    func testServeListensOnTheIPv6Loopback() async throws {
        let directory = try TemporaryDirectory(prefix: "serve-ipv6")
        defer { directory.remove() }
        let serve = try ServerProcess(ProcessRunner.pipelineExecutable, ["serve", "--host", "::1", "--port", "0", "--data-dir", directory.path + "/engine", "--quiet"])
        defer { serve.stop() }
        let file = try directory.write("a.bin", data: Data(repeating: 3, count: 100_000))
        let endpoint = "http://[::1]:\(serve.port)/resumable/files/"
        let upload = await CLIHarness.run(["upload", file, "--endpoint", endpoint, "--no-handoff", "--quiet", "--state-dir", directory.path + "/state"])
        XCTAssertEqual(upload.status, 0, upload.stderr)
        XCTAssertTrue(upload.stdout.contains("\t" + endpoint), upload.stdout)
        let refused = await CLIHarness.run(["serve", "--host", "localhost", "--port", "0", "--data-dir", directory.path + "/other"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("--host needs an IPv4 or IPv6 address"), refused.stderr)
    }
}
