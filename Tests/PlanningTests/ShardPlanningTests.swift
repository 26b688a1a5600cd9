import Basics
import Crypto
import Foundation
@testable import Planning
import TestSupport
import XCTest

/// A shard plans only its share, decided before any file is read: the shards together are the
/// whole plan, each Assembly once, with the same ids.
final class ShardPlanningTests: XCTestCase {
    static func makeSite() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory()
        for index in 0..<23 { try site.write(String(format: "images/%02d.png", index), "image \(index)") }
        for index in 0..<7 { try site.write("docs/d\(index).txt", "doc \(index)") }
        try site.write("pipeline.yml", """
            version: 1
            assemblies:
              thumbs:
                inputs: [images/*.png]
                batch: 4
                steps: {t: {robot: /file/hash, use: ":original"}}
              docs:
                inputs: [docs/*.txt, images/0*.png]
                batch: all
                steps: {h: {robot: /file/hash, use: ":original"}}
            """)
        return site
    }

    private func plan(_ site: TemporaryDirectory, shard: (Int, Int)? = nil, cache: DigestCache? = nil) throws -> Plan {
        var session = PlanningSession(environment: [:])
        if let cache { session.digestCache = { _ in cache } }
        let loaded = session.plan(session.load(manifestPath: site.path + "/pipeline.yml"), shard: shard.map { (index: $0.0, count: $0.1) })
        return try XCTUnwrap(loaded.value, "\(loaded.diagnostics)")
    }

    func testTheShardsTogetherAreTheWholePlan() throws {
        let site = try Self.makeSite()
        defer { site.remove() }
        let whole = try plan(site)
        XCTAssertGreaterThanOrEqual(whole.assemblies.count, 7, "23 images in fours or fewer, and the documents")
        for count in 1...9 {
            let shards = try (1...count).map { try plan(site, shard: ($0, count)) }
            XCTAssertEqual(shards.flatMap(\.assemblies).map(\.id), whole.assemblies.map(\.id), "\(count) shards")
            for (index, shard) in shards.enumerated() {
                XCTAssertEqual(shard.json, whole.shard(index + 1, of: count).json, "shard \(index + 1) of \(count) is its share of the whole")
            }
        }
    }

    func testAShardHashesOnlyItsOwnFiles() throws {
        let site = try Self.makeSite()
        defer { site.remove() }
        let cacheFile = site.path + "/.pipeline/digests"
        let first = try plan(site, shard: (1, 3), cache: DigestCache(file: cacheFile, slack: .zero))
        let hashed = try CacheFile.records(cacheFile).count
        XCTAssertEqual(hashed, Set(first.assemblies.flatMap(\.files).map(\.path)).count, "only the shard's files were read")
        XCTAssertLessThan(hashed, 30)
        // The next shard adds its files to the cache and keeps the first shard's.
        let second = try plan(site, shard: (2, 3), cache: DigestCache(file: cacheFile, slack: .zero))
        let both = Set((first.assemblies + second.assemblies).flatMap(\.files).map(\.path)).count
        XCTAssertEqual(try CacheFile.records(cacheFile).count, both)
    }
}

/// The digest cache is read and written a piece of files at a time, in path order: however the
/// files are cut into pieces, and whichever shard plans, the cache lists every file once, in order,
/// with its current digest.
final class DigestCachePiecesTests: XCTestCase {
    private func plan(_ site: TemporaryDirectory, pieceSize: Int, shard: (index: Int, count: Int)? = nil) throws -> Plan {
        let loaded = PlanningSession(environment: [:]).load(manifestPath: site.path + "/pipeline.yml")
        let manifest = try XCTUnwrap(loaded.value?.manifest)
        var planner = Planner(cache: DigestCache(file: site.path + "/.pipeline/digests", slack: .zero), shard: shard)
        planner.pieceSize = pieceSize
        let planned = planner.plan(manifest)
        return try XCTUnwrap(planned.plan, "\(planned.diagnostics)")
    }

    /// The cache's records, checked to ascend strictly and to hold the real digest of each file
    /// whose identity they still match; the paths whose identity matches are `current`.
    private func cachedPaths(_ site: TemporaryDirectory, file: StaticString = #filePath, line: UInt = #line) throws -> (all: [String], current: Set<String>) {
        let reader = try XCTUnwrap(DigestCacheReader(file: site.path + "/.pipeline/digests"), file: file, line: line)
        var paths: [String] = []
        var current: Set<String> = []
        while let record = reader.next() {
            paths.append(record.path)
            guard FileIdentity(path: site.path + "/" + record.path) == record.entry.identity else { continue }
            let content = try XCTUnwrap(FileManager.default.contents(atPath: site.path + "/" + record.path), record.path, file: file, line: line)
            XCTAssertEqual(record.entry.digest, SHA256.digest([UInt8](content)), record.path, file: file, line: line)
            current.insert(record.path)
        }
        XCTAssertFalse(reader.damaged, file: file, line: line)
        XCTAssertEqual(paths, paths.sorted(by: ByteOrder.precedes), file: file, line: line)
        XCTAssertEqual(Set(paths).count, paths.count, file: file, line: line)
        return (paths, current)
    }

    func testAnyCutIntoPiecesGivesTheSamePlanAndCache() throws {
        let site = try ShardPlanningTests.makeSite()
        defer { site.remove() }
        let whole = try plan(site, pieceSize: 1000)
        let cache = try XCTUnwrap(FileManager.default.contents(atPath: site.path + "/.pipeline/digests")).dropFirst(DigestCacheFormat.headerSize)
        XCTAssertEqual(try cachedPaths(site).current.count, 30)
        for size in [1, 2, 7] {
            try FileManager.default.removeItem(atPath: site.path + "/.pipeline")
            XCTAssertEqual(try plan(site, pieceSize: size).json, whole.json, "pieces of \(size)")
            XCTAssertEqual(try XCTUnwrap(FileManager.default.contents(atPath: site.path + "/.pipeline/digests")).dropFirst(DigestCacheFormat.headerSize), cache)
            XCTAssertEqual(try plan(site, pieceSize: size).json, whole.json, "pieces of \(size), from the cache")
        }
    }

    func testAShardKeepsTheOthersEntriesInOrderAroundItsOwn() throws {
        let site = try ShardPlanningTests.makeSite()
        defer { site.remove() }
        _ = try plan(site, pieceSize: 1000)
        for count in 2...4 {
            for index in 1...count {
                // A changed file inside the shard and one outside it: the first is hashed again, the other's entry kept.
                let shard = try plan(site, pieceSize: 3, shard: (index, count))
                let own = try XCTUnwrap(shard.assemblies.first?.files.first?.path)
                try site.write(own, "changed in shard \(index) of \(count)")
                try site.write("images/22.png", "changed outside \(index) of \(count)")
                _ = try plan(site, pieceSize: 3, shard: (index, count))
                let cached = try cachedPaths(site)
                XCTAssertEqual(cached.all.count, 30, "the other shards' entries are kept")
                XCTAssertTrue(cached.current.contains(own), "shard \(index) of \(count) hashed its changed file again")
            }
        }
    }

    func testADamagedRecordEndsTheCacheThereAndIsRewritten() throws {
        let site = try ShardPlanningTests.makeSite()
        defer { site.remove() }
        _ = try plan(site, pieceSize: 1000)
        let file = site.path + "/.pipeline/digests"
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: file))
        let path = try XCTUnwrap(bytes.range(of: Data("images/10.png".utf8)))
        let length = path.lowerBound - DigestCacheFormat.fixedSize
        bytes.replaceSubrange(length..<length + 4, with: [200, 0, 0, 0])  // the record runs into the next one
        try bytes.write(to: URL(fileURLWithPath: file))
        _ = try plan(site, pieceSize: 4)
        XCTAssertEqual(try cachedPaths(site).current.count, 30, "rewritten whole")
    }

    func testAShardDropsOtherEntriesTooRecentToTrustAndRehashKeepsTheRest() throws {
        let site = try TemporaryDirectory(prefix: "racy")
        defer { site.remove() }
        let file = site.path + "/.pipeline/digests"
        // Written at 100 s: "a" was changed at 99.5 s (in the cache's last two seconds, racy); "c" long before.
        func record(_ path: String, modified: Int64) -> (path: String, entry: RememberedDigest) {
            (path, RememberedDigest(identity: FileIdentity(size: 5, modified: modified, changed: modified, inode: 1, device: 1), digest: SHA256.digest(path)))
        }
        try CacheFile.write(file, stamp: 100_000_000_000, [record("a", modified: 99_500_000_000), record("c", modified: 1_000_000_000)])
        for rehashing in [false, true] {
            let update = DigestCache(file: file, slack: .seconds(2), rehashing: rehashing).update(keepingOthers: true)
            let (trusted, piece) = update.remembered(for: ["b"])
            XCTAssertEqual(trusted.count, 1)
            update.record(["b"], [nil], piece)
            update.finish()
            let reader = try XCTUnwrap(DigestCacheReader(file: file))
            var paths: [String] = []
            while let entry = reader.next() { paths.append(entry.path) }
            XCTAssertEqual(paths, ["c"], "rehashing \(rehashing): the racy entry is not made trusted by a newer stamp; the trusted one is kept")
        }
    }
}
