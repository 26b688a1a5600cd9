import Basics
import Foundation
@testable import Planning
import TestSupport
import XCTest

/// A shard plans only its share, decided before any file is read: the shards together are the
/// whole plan, each Assembly once, with the same ids.
final class ShardPlanningTests: XCTestCase {
    private func makeSite() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory()
        for index in 0..<23 { try site.write(String(format: "images/%02d.png", index), "image \(index)") }
        for index in 0..<7 { try site.write("docs/d\(index).txt", "doc \(index)") }
        try site.write("pipeline.yml", """
            version: 1
            assemblies:
              thumbs:
                inputs: [images/*.png]
                batch: 4
                steps: {t: {robot: /image/resize, use: ":original", width: 10}}
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
        let site = try makeSite()
        defer { site.remove() }
        let whole = try plan(site)
        XCTAssertEqual(whole.assemblies.count, 7)
        for count in 1...9 {
            let shards = try (1...count).map { try plan(site, shard: ($0, count)) }
            XCTAssertEqual(shards.flatMap(\.assemblies).map(\.id), whole.assemblies.map(\.id), "\(count) shards")
            for (index, shard) in shards.enumerated() {
                XCTAssertEqual(shard.json, whole.shard(index + 1, of: count).json, "shard \(index + 1) of \(count) is its share of the whole")
            }
        }
    }

    func testAShardHashesOnlyItsOwnFiles() throws {
        let site = try makeSite()
        defer { site.remove() }
        let cacheFile = site.path + "/.pipeline/digests"
        let first = try plan(site, shard: (1, 3), cache: DigestCache(file: cacheFile, slack: .zero))
        let hashed = try String(contentsOfFile: cacheFile, encoding: .utf8).split(separator: "\u{0}").count
        XCTAssertEqual(hashed, Set(first.assemblies.flatMap(\.files).map(\.path)).count, "only the shard's files were read")
        XCTAssertLessThan(hashed, 30)
        // The next shard adds its files to the cache and keeps the first shard's.
        let second = try plan(site, shard: (2, 3), cache: DigestCache(file: cacheFile, slack: .zero))
        let both = Set((first.assemblies + second.assemblies).flatMap(\.files).map(\.path)).count
        XCTAssertEqual(try String(contentsOfFile: cacheFile, encoding: .utf8).split(separator: "\u{0}").count, both)
    }
}
