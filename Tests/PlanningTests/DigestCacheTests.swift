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
        // Stamped an hour back: any write would show, however coarse the file system's clock.
        let written = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded())
        try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: file)
        let records = try CacheFile.records(file)
        XCTAssertEqual(records.map(\.path), ["files/a.txt", "files/b.txt"])
        XCTAssertEqual(records.first?.entry.digest.hex, sha256("alpha"))
        XCTAssertEqual(records.first?.entry.identity, FileIdentity(path: site.path + "/files/a.txt"))
        XCTAssertEqual(try plan(site, slack: .zero).json, first.json)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date, written, "no change, no write")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: site.path + "/.pipeline"), ["digests"], "not even a temporary file")

        try FileManager.default.removeItem(atPath: site.path + "/files/b.txt")
        _ = try plan(site, slack: .zero)
        XCTAssertEqual(try CacheFile.records(file).map(\.path), ["files/a.txt"], "a file no longer planned is forgotten")

        let valid = try XCTUnwrap(FileManager.default.contents(atPath: file))
        let header = DigestCacheFormat.headerSize
        let damaged: [(String, Data)] = [
            ("empty", Data()), ("the text cache of version 1", Data("pipeline-digests 1 5\n".utf8)), ("a header cut short", valid.prefix(header - 1)),
            ("a record cut short", valid.prefix(valid.count - 1)), ("a path length of 0", valid.prefix(header) + Data(count: 4) + valid.dropFirst(header + 4)),
            ("a negative size", valid.prefix(header + 4) + Data(repeating: 0xFF, count: 8) + valid.dropFirst(header + 12)),
        ]
        for (name, bytes) in damaged {
            try bytes.write(to: URL(fileURLWithPath: file))
            XCTAssertEqual(digests(try plan(site, slack: .zero))["files/a.txt"], sha256("alpha"), "a damaged cache is ignored: \(name)")
            XCTAssertEqual(try CacheFile.records(file).map(\.path), ["files/a.txt"], "and written anew: \(name)")
        }
    }

    func testAChangeAfterUnchangedRecordsKeepsThemByteForByte() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("pipeline.yml", "version: 1\nassemblies:\n  all:\n    inputs: [files/*.txt]\n    steps: {h: {robot: /file/hash, use: ':original'}}\n")
        for index in 0..<50 { try site.write(String(format: "files/%02d.txt", index), "file \(index)") }
        let file = site.path + "/.pipeline/digests"
        _ = try plan(site, slack: .zero)
        let before = try CacheFile.records(file)
        try site.write("files/40.txt", "changed")
        try site.write("files/45.txt", "changed too, longer")
        let plan = try plan(site, slack: .zero)
        XCTAssertEqual(digests(plan)["files/40.txt"], sha256("changed"))
        let after = try CacheFile.records(file)
        XCTAssertEqual(after.map(\.path), before.map(\.path))
        XCTAssertEqual(after.prefix(40).map(\.entry), before.prefix(40).map(\.entry), "the 40 records before the change are copied as they were")
        XCTAssertEqual(after[40].entry.digest.hex, sha256("changed"))
        XCTAssertEqual(after[45].entry.digest.hex, sha256("changed too, longer"))
        XCTAssertEqual(after[41..<45].map(\.entry), before[41..<45].map(\.entry))
    }
}

/// A cache file is read from whatever a checkout left: any bytes read to a clean stop, never a
/// crash, and what is read is well-formed.
final class DigestCacheDamageTests: XCTestCase {
    func testAnyDamageStopsTheReadingCleanly() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.path + "/digests"
        let records = (0..<60).map { index in
            (path: String(format: "files/%03d-%@.png", index, String(repeating: "x", count: index % 7)),
             entry: RememberedDigest(identity: FileIdentity(size: Int64(index), modified: 1, changed: 2, inode: UInt64(index), device: 3), digest: SHA256.digest("\(index)")))
        }
        try CacheFile.write(file, stamp: 5, records)
        let valid = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: file)))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3000 {
            var bytes = valid
            switch round % 4 {
            case 0:  // a few bytes changed anywhere
                for _ in 0..<Int.random(in: 1...4, using: &generator) { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            case 1:  // cut short
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            case 2:  // a path length made huge or zero
                let record = DigestCacheFormat.headerSize + (DigestCacheFormat.fixedSize + 16) * Int.random(in: 0..<10, using: &generator)
                let length: [UInt8] = [[0, 0, 0, 0], [0, 0, 1, 0], [255, 255, 255, 255], [1, 0, 1, 0]][Int.random(in: 0..<4, using: &generator)]
                if record + 4 <= bytes.count { bytes.replaceSubrange(record..<record + 4, with: length) }
            default:  // a piece repeated, so paths go back
                let start = Int.random(in: DigestCacheFormat.headerSize..<bytes.count, using: &generator)
                bytes.insert(contentsOf: bytes[start..<min(bytes.count, start + 200)], at: start)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            guard let reader = DigestCacheReader(file: file) else { continue }
            var paths: [String] = []
            while let record = reader.next() {
                paths.append(record.path)
                XCTAssertGreaterThanOrEqual(record.entry.identity.size, 0)
            }
            XCTAssertEqual(paths, paths.sorted(by: ByteOrder.precedes), "round \(round)")
            XCTAssertEqual(Set(paths).count, paths.count, "round \(round)")
            XCTAssertLessThanOrEqual(paths.count, records.count + 3, "round \(round)")
        }
    }
}

/// Reads and plants digest cache files.
enum CacheFile {
    /// Every record of the cache at `file`, which must read whole.
    static func records(_ file: String) throws -> [(path: String, entry: RememberedDigest)] {
        let reader = try XCTUnwrap(DigestCacheReader(file: file), "no readable cache at \(file)")
        var records: [(path: String, entry: RememberedDigest)] = []
        while let record = reader.next() { records.append(record) }
        XCTAssertFalse(reader.damaged, file)
        return records
    }

    /// Writes a cache stamped `stamp` with `records` as given (in their order).
    static func write(_ file: String, stamp: Int64, _ records: [(path: String, entry: RememberedDigest)]) throws {
        var bytes = DigestCacheFormat.header(stamp: stamp)
        for record in records { DigestCacheFormat.append(record.path, record.entry, to: &bytes) }
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
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

    /// A record for files/a.txt with its real identity (or another inode) and `digest`, written `stamp` ns after 1970.
    private func plant(_ site: TemporaryDirectory, digest: SHA256Digest, inode: UInt64? = nil, stamp: Int64 = Int64.max / 2) throws {
        var identity = try XCTUnwrap(FileIdentity(path: site.path + "/files/a.txt"))
        if let inode { identity.inode = inode }
        try CacheFile.write(site.path + "/.pipeline/digests", stamp: stamp, [("files/a.txt", RememberedDigest(identity: identity, digest: digest))])
    }

    func testAPlantedDigestIsUsedUntilRehashAndOthersAreNot() throws {
        let site = try site()
        defer { site.remove() }
        let planted = SHA256.digest("planted")
        try plant(site, digest: planted)
        XCTAssertEqual(try plan(site)["files/a.txt"], planted.hex, "a well-formed entry is trusted: the file is not read")
        try plant(site, digest: planted)
        XCTAssertEqual(try plan(site, rehashing: true)["files/a.txt"], SHA256.hex("alpha"), "--rehash trusts nothing")
        try plant(site, digest: planted, inode: 5)
        XCTAssertEqual(try plan(site)["files/a.txt"], SHA256.hex("alpha"), "another file's entry is not this one's")
        try plant(site, digest: planted, stamp: 0)
        XCTAssertEqual(try plan(site)["files/a.txt"], SHA256.hex("alpha"), "an entry written before its file changed is not trusted")
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
        var session = PlanningSession(environment: [:])
        session.digestCache = { _ in DigestCache(file: site.path + "/.pipeline/digests", slack: .zero) }
        let warned = session.plan(manifestPath: site.path + "/pipeline.yml").diagnostics
        XCTAssertTrue(warned.contains { $0.id == "plan.digest-cache" && $0.severity == .warning && $0.message.contains("cannot be written") }, "and the plan says why it hashes every time: \(warned)")
    }

    func testTheCacheIsStampedWhenPlanningBegins() throws {
        let site = try site()
        defer { site.remove() }
        // Planning began a minute before the cache is written: the stamp is that minute, not the write's time.
        let began = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded())
        let cache = DigestCache(file: site.path + "/.pipeline/digests", opened: began)
        var session = PlanningSession(environment: [:])
        session.digestCache = { _ in cache }
        XCTAssertNotNil(session.plan(manifestPath: site.path + "/pipeline.yml").value)
        let stamp = Double(try XCTUnwrap(DigestCacheReader(file: site.path + "/.pipeline/digests")).written) / 1e9
        XCTAssertEqual(stamp, began.timeIntervalSince1970, accuracy: 0.001, "a file changed while others were hashed stays racy")
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
