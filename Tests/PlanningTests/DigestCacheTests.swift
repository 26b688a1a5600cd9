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
        let planted = SHA256.digest("planted")
        let results = FileHasher.digests(paths: [path, site.path + "/files/b.txt"], remembered: [RememberedDigest(identity: identity, digest: planted), nil])
        XCTAssertEqual(try results[0].get().digest, planted)
        XCTAssertEqual(try results[1].get().sha256, sha256("bravo"))
        XCTAssertEqual(try results[1].get().identity, FileIdentity(path: site.path + "/files/b.txt"), "read whole and unchanged: worth remembering")
    }

    func testFilesDatedBeyond2262AreHashedAndCachedLikeAnyOther() throws {
        let site = try makeSite()
        defer { site.remove() }
        let far = [timespec(tv_sec: 10_413_792_000, tv_nsec: 0), timespec(tv_sec: 10_413_792_000, tv_nsec: 0)]  // 2300-01-01
        XCTAssertEqual(utimensat(AT_FDCWD, site.path + "/files/a.txt", far, 0), 0)
        XCTAssertEqual(digests(try plan(site, slack: .zero))["files/a.txt"], sha256("alpha"))
        XCTAssertEqual(digests(try plan(site, slack: .zero))["files/a.txt"], sha256("alpha"), "again, from the cache")
        XCTAssertEqual(FileTime.nanoseconds(timespec(tv_sec: Int.max, tv_nsec: 0)), Int64.max)
        XCTAssertEqual(FileTime.nanoseconds(timespec(tv_sec: Int.min, tv_nsec: 0)), Int64.min)
        XCTAssertEqual(FileTime.nanoseconds(timespec(tv_sec: 2, tv_nsec: 5)), 2_000_000_005)
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

/// A cache file is data from the checkout: damaged, planted or linked elsewhere, it is not trusted.
final class DigestCacheFileTests: XCTestCase {
    private func site() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory()
        try site.write("pipeline.yml", "version: 1\nassemblies:\n  all:\n    inputs: [files/*.txt]\n    steps: {h: {robot: /file/hash, use: ':original'}}\n")
        try site.write("files/a.txt", "alpha")
        return site
    }

    private func plan(_ site: TemporaryDirectory, rehashing: Bool = false) throws -> [String: String] {
        var session = PlanningSession(environment: [:])
        session.digestCache = { _ in DigestCache(file: site.path + "/.pipeline/digests", slack: .zero, rehashing: rehashing) }
        let loaded = session.plan(manifestPath: site.path + "/pipeline.yml")
        let plan = try XCTUnwrap(loaded.value, "\(loaded.diagnostics)")
        return Dictionary(uniqueKeysWithValues: plan.assemblies.flatMap(\.files).map { ($0.path, $0.sha256) })
    }

    /// A record for files/a.txt with its real identity and `digest`, written `stamp` ns after 1970.
    private func plant(_ site: TemporaryDirectory, digest: String, inode: String? = nil, stamp: Int64 = Int64.max / 2) throws {
        var info = stat()
        XCTAssertEqual(stat(site.path + "/files/a.txt", &info), 0)
        let times = "\(Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)) \(Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))"
        try site.write(".pipeline/digests", "pipeline-digests 1 \(stamp)\n\(info.st_size) \(times) \(inode ?? String(info.st_ino)) \(info.st_dev) \(digest) files/a.txt\u{0}")
    }

    func testAPlantedDigestIsUsedUntilRehashAndDamagedOnesAreNot() throws {
        let site = try site()
        defer { site.remove() }
        let planted = String(repeating: "0", count: 64)
        try plant(site, digest: planted)
        XCTAssertEqual(try plan(site)["files/a.txt"], planted, "a well-formed entry is trusted: the file is not read")
        try plant(site, digest: planted)
        XCTAssertEqual(try plan(site, rehashing: true)["files/a.txt"], SHA256.hex("alpha"), "--rehash trusts nothing")
        for (digest, inode) in [(String(repeating: "Z", count: 64), nil), ("\"\\" + String(repeating: "0", count: 62), nil), (planted, "-5")] {
            try plant(site, digest: digest, inode: inode)
            XCTAssertEqual(try plan(site)["files/a.txt"], SHA256.hex("alpha"), "a damaged cache is ignored whole: \(digest) \(inode ?? "")")
        }
    }

    func testTheCacheIsNeverReadOrWrittenThroughALinkOrAPipe() throws {
        let site = try site()
        defer { site.remove() }
        let outside = try TemporaryDirectory()
        defer { outside.remove() }
        try outside.write("target", "keep me")
        try FileManager.default.createDirectory(atPath: site.path + "/.pipeline", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: site.path + "/.pipeline/digests", withDestinationPath: outside.path + "/target")
        XCTAssertEqual(try plan(site)["files/a.txt"], SHA256.hex("alpha"))
        XCTAssertEqual(try String(contentsOfFile: outside.path + "/target", encoding: .utf8), "keep me", "not written through the link")

        try FileManager.default.removeItem(atPath: site.path + "/.pipeline")
        try FileManager.default.createSymbolicLink(atPath: site.path + "/.pipeline", withDestinationPath: outside.path)
        XCTAssertEqual(try plan(site)["files/a.txt"], SHA256.hex("alpha"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.path + "/digests"), "not written into a linked folder")

        try FileManager.default.removeItem(atPath: site.path + "/.pipeline")
        try FileManager.default.createDirectory(atPath: site.path + "/.pipeline", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(site.path + "/.pipeline/digests", 0o644), 0)
        XCTAssertEqual(try plan(site)["files/a.txt"], SHA256.hex("alpha"), "a pipe neither blocks nor is used")
    }

    func testTheCacheIsStampedWhenPlanningBegins() throws {
        let site = try site()
        defer { site.remove() }
        let before = Date()
        let cache = DigestCache(file: site.path + "/.pipeline/digests")
        Thread.sleep(forTimeInterval: 0.3)
        var session = PlanningSession(environment: [:])
        session.digestCache = { _ in cache }
        XCTAssertNotNil(session.plan(manifestPath: site.path + "/pipeline.yml").value)
        let header = try String(contentsOfFile: site.path + "/.pipeline/digests", encoding: .utf8).prefix { $0 != "\n" }
        let stamp = try XCTUnwrap(Double(header.split(separator: " ").last ?? "")) / 1e9
        XCTAssertLessThan(stamp, before.timeIntervalSince1970 + 0.2, "a file changed while others were hashed stays racy")
    }

    func testNamesThatOnlyLookAlikeAreTwoFiles() throws {
        let site = try site()
        defer { site.remove() }
        try site.write("files/caf\u{E9}.txt", "composed")
        try site.write("files/cafe\u{301}.txt", "decomposed, longer")
        let files = try XCTUnwrap(PlanningSession(environment: [:]).plan(manifestPath: site.path + "/pipeline.yml").value).assemblies.flatMap(\.files)
        XCTAssertEqual(files.map(\.size).sorted(), [5, 8, 18])
        XCTAssertEqual(Set(files.map(\.sha256)), [SHA256.hex("alpha"), SHA256.hex("composed"), SHA256.hex("decomposed, longer")])
    }
}
