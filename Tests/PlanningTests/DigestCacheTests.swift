import Basics
import Crypto
import Foundation
@testable import Planning
import TestSupport
import XCTest

/// The digest cache never gives the digest of an older version of a file, and spares reading the
/// files it can prove unchanged.
final class DigestCacheTests: XCTestCase {
    private func sha256(_ text: String) -> String { SHA256.hex(text) }

    private func plan(_ site: TemporaryDirectory, slack: Duration) throws -> Plan {
        var session = PlanningSession(environment: [:])
        session.digestCache = { _ in DigestCache(file: site.path + "/.pipeline/digests", slack: slack) }
        let loaded = session.plan(manifestPath: site.path + "/pipeline.yml")
        return try XCTUnwrap(loaded.value, "\(loaded.diagnostics)")
    }

    private func makeSite() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory()
        try site.write("pipeline.yml", "version: 1\nassemblies:\n  all:\n    inputs: [files/*.txt]\n    steps: {h: {robot: /file/hash, use: ':original'}}\n")
        try site.write("files/a.txt", "alpha")
        try site.write("files/b.txt", "bravo")
        return site
    }

    private func digests(_ plan: Plan) -> [String: String] {
        Dictionary(uniqueKeysWithValues: plan.assemblies.flatMap(\.files).map { ($0.path, $0.sha256) })
    }

    func testASameSizeRewriteInTheSameSecondIsHashedAgain() throws {
        let site = try makeSite()
        defer { site.remove() }
        XCTAssertEqual(digests(try plan(site, slack: .seconds(2)))["files/a.txt"], sha256("alpha"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: site.path + "/.pipeline/digests"))
        try site.write("files/a.txt", "ALPHA")
        XCTAssertEqual(digests(try plan(site, slack: .seconds(2)))["files/a.txt"], sha256("ALPHA"), "same size, same second")
    }

    func testARewriteWithItsOldModificationTimeIsHashedAgain() throws {
        let site = try makeSite()
        defer { site.remove() }
        let path = site.path + "/files/a.txt"
        let old = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, old, 0), 0)
        _ = try plan(site, slack: .zero)
        try site.write("files/a.txt", "ALPHA")
        XCTAssertEqual(utimensat(AT_FDCWD, path, old, 0), 0, "size and mtime as before; only ctime tells")
        XCTAssertEqual(digests(try plan(site, slack: .zero))["files/a.txt"], sha256("ALPHA"))
    }

    func testAnUnchangedFileIsNotReadAgain() throws {
        let site = try makeSite()
        defer { site.remove() }
        let path = site.path + "/files/a.txt"
        let identity = try XCTUnwrap(FileIdentity(path: path))
        // A remembered digest with the file's identity is taken as it is: proof that nothing was read.
        let planted = String(repeating: "0", count: 64)
        let results = FileHasher.digests(paths: [path, site.path + "/files/b.txt"], remembered: [RememberedDigest(identity: identity, sha256: planted), nil])
        XCTAssertEqual(try results[0].get().sha256, planted)
        XCTAssertEqual(try results[1].get().sha256, sha256("bravo"))
        XCTAssertEqual(try results[1].get().identity, FileIdentity(path: site.path + "/files/b.txt"), "read whole and unchanged: worth remembering")
    }

    func testTheCacheIsUsedAndKeptOnlyWhileNothingChanges() throws {
        let site = try makeSite()
        defer { site.remove() }
        let file = site.path + "/.pipeline/digests"
        let first = try plan(site, slack: .zero)
        let written = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
        let text = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("pipeline-digests 1 "), text)
        XCTAssertTrue(text.contains(" \(sha256("alpha")) files/a.txt\u{0}"), text)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(try plan(site, slack: .zero).json, first.json)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date, written, "no change, no write")

        try FileManager.default.removeItem(atPath: site.path + "/files/b.txt")
        _ = try plan(site, slack: .zero)
        XCTAssertFalse(try String(contentsOfFile: file, encoding: .utf8).contains("files/b.txt"), "a file no longer planned is forgotten")

        for garbage in ["", "pipeline-digests 1 x\n", "pipeline-digests 1 5\n1 2 3 4 5 short files/a.txt\u{0}", "\u{0}\u{0}\u{0}"] {
            try site.write(".pipeline/digests", garbage)
            XCTAssertEqual(digests(try plan(site, slack: .zero))["files/a.txt"], sha256("alpha"), "a damaged cache is ignored: \(garbage)")
        }
    }
}
