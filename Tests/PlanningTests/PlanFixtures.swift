import Foundation
import Basics
import Crypto
import Planning
import TestSupport
import XCTest

/// Small plans built by hand for the plan, JSON and diff tests.
enum PlanFixtures {
    /// A file whose fake digest is derived from `content`, so equal content gives an equal digest.
    static func file(_ path: String, _ content: String = "v1", size: Int64 = 10) -> PlannedFile {
        PlannedFile(path: path, size: size, digest: SHA256.digest(content))
    }

    /// `{"steps": {"thumb": {"robot": "/image/resize", "use": ":original", "width": <width>}}}`.
    static func resize(width: Int) -> JSONValue {
        .object(["steps": .object(["thumb": .object([
            "robot": .string("/image/resize"), "use": .string(":original"), "width": .int(width),
        ])])])
    }

    /// One Assembly per group of paths.
    static func assemblies(_ job: String, _ instructions: JSONValue, _ groups: [[PlannedFile]]) -> [PlannedAssembly] {
        groups.map { PlannedAssembly(job: job, instructions: instructions, files: $0) }
    }

    /// A plan of `assemblies` for `pipeline.yml`.
    static func plan(_ assemblies: [PlannedAssembly]) -> Plan {
        Plan(pipeline: "site-images", manifest: "pipeline.yml", assemblies: assemblies)
    }

    /// Two jobs, three Assemblies, four files (30 bytes); instructions with every JSON type.
    static func samplePlan() -> Plan {
        let thumbs = resize(width: 200)
        let previews = parseJSON(#"""
            {"steps": {"large": {"robot": "/image/resize", "use": ":original", "width": 640, "quality": 0.85,
                                 "strip": true, "background": null, "sizes": [1, -2, "three"]}},
             "fields": {"kind": "preview \"quoted\" ünïcode\ttab"},
             "notify_url": "https://hooks.example.com/transloadit"}
            """#)
        let thumbGroups = [[file("images/a.png"), file("images/b.png")], [file("images/sub/c.png", "v2", size: 0)]]
        return Plan(
            pipeline: "site-images", manifest: "examples/site/pipeline.yml",
            assemblies: assemblies("thumbs", thumbs, thumbGroups) + assemblies("previews", previews, [[file("images/a.png")]]))
    }
}

extension PlannedFile {
    /// A planned file from the hex digest a test spells out.
    init(path: String, size: Int64, sha256: String) {
        guard let digest = SHA256Digest(hex: sha256) else { preconditionFailure("not a SHA-256: \(sha256)") }
        self.init(path: path, size: size, digest: digest)
    }
}
