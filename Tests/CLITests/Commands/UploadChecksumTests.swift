import Foundation
import EngineTestSupport
import TestSupport
import XCTest

/// `pipeline upload --checksum auto` (its default) sends what its help says: "the first the
/// server offers of crc32, sha256, sha1, md5", also to a server that offers no CRC-32.
final class UploadChecksumTests: XCTestCase {
    /// The requests a logging proxy in front of port `upstream` saw, each with how its checksum came.
    private func proxied(_ upstream: Int, rules: [String], log: TemporaryDirectory) throws -> ServerProcess {
        try ServerProcess("/usr/bin/env", [
            "python3", PackageRoot.path + "/Tests/APIClientsTests/Tus/Fixtures/fault_proxy.py", String(upstream),
        ] + rules, errors: log.path + "/proxy.log")
    }

    private func requests(_ log: TemporaryDirectory) throws -> [String] {
        try String(contentsOfFile: log.path + "/proxy.log", encoding: .utf8).split(separator: "\n").map(String.init).filter { $0.hasPrefix("POST") || $0.hasPrefix("PATCH") }
    }

    private func upload(_ files: [String], to endpoint: String, in directory: TemporaryDirectory, checksum: [String]) async throws {
        let result = await CLIHarness.run(["upload"] + files + ["--endpoint", endpoint, "--quiet", "--no-handoff", "--state-dir", directory.path + "/state"] + checksum)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testAutoSendsSHA256ToOurEngineOfferingOnlySHA1AndSHA256() async throws {
        let engine = try EngineTestServer()
        defer { engine.stop() }
        let directory = try TemporaryDirectory(prefix: "checksum-auto")
        defer { directory.remove() }
        let proxy = try proxied(engine.port, rules: ["OPTIONS:*:algorithms=sha1,sha256"], log: directory)
        defer { proxy.stop() }
        let small = try directory.write("small.bin", data: Data(repeating: 1, count: 100_000))
        let large = try directory.write("large.bin", data: TestProject.random(9_000_000))
        for checksum in [["--checksum", "auto"], []] {
            try? FileManager.default.removeItem(atPath: directory.path + "/state")
            let before = try requests(directory).count
            try await upload([small, large], to: proxy.url("/resumable/files/"), in: directory, checksum: checksum)
            let sent = try requests(directory).dropFirst(before)
            XCTAssertGreaterThan(sent.filter { $0.hasPrefix("PATCH") }.count, 1, "the large file goes in 8 MiB PATCHes: \(sent)")
            XCTAssertTrue(sent.filter { $0.hasPrefix("PATCH") }.allSatisfy { $0.hasSuffix("checksum=header") }, "\(checksum): every PATCH carries one: \(sent)")
            XCTAssertTrue(sent.contains { $0.hasPrefix("POST") && $0.hasSuffix("checksum=header") }, "\(checksum): the small file's creating POST carries one: \(sent)")
        }
        let off = try requests(directory).count
        try? FileManager.default.removeItem(atPath: directory.path + "/state")
        try await upload([small], to: proxy.url("/resumable/files/"), in: directory, checksum: ["--checksum", "off"])
        XCTAssertTrue(try requests(directory).dropFirst(off).allSatisfy { $0.hasSuffix("checksum=none") }, "off sends none")
    }

    func testAutoSendsOneToLitestarTus() async throws {
        let peers = try LitestarServer()
        defer { peers.stop() }
        let directory = try TemporaryDirectory(prefix: "checksum-litestar")
        defer { directory.remove() }
        let proxy = try proxied(peers.port, rules: [], log: directory)
        defer { proxy.stop() }
        let large = try directory.write("large.bin", data: TestProject.random(9_000_000))
        try await upload([large], to: proxy.url("/files/"), in: directory, checksum: [])
        let patches = try requests(directory).filter { $0.hasPrefix("PATCH") }
        XCTAssertFalse(patches.isEmpty)
        XCTAssertTrue(patches.allSatisfy { $0.hasSuffix("checksum=header") }, "litestar-tus offers sha1, sha256 and md5: \(patches)")
        let stored = try requests(directory).compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) }.last { $0.hasPrefix("/files/") && $0.count > "/files/".count }
        XCTAssertEqual(try peers.storedBytes(of: try XCTUnwrap(stored)), try Data(contentsOf: URL(fileURLWithPath: large)), "the server verified and kept every byte")
    }
}
