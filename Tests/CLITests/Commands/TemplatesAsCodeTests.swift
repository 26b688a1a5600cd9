import Basics
import Foundation
import TestSupport
import XCTest

/// Templates declared in the manifest: checked, planned by content, and brought in line on the
/// service by `pipeline run` before the Assemblies that use them.
final class TemplatesAsCodeTests: XCTestCase {
    private func manifest(_ algorithm: String, extra: String = "") -> String {
        """
        version: 1
        endpoint: local
        templates:
          file-hashes:
            allow_steps_override: false
            steps:
              hash: {robot: /file/hash, use: ":original", algorithm: \(algorithm), result: true}
        assemblies:
          hashes:
            inputs: [files/*.txt]
            template: file-hashes
        \(extra)
        """
    }

    func testAManifestOfTemplatesAloneIsManaged() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("pipeline.yml", "version: 1\nendpoint: local\ntemplates:\n  file-hashes:\n    steps:\n      h: {robot: /file/hash, use: ':original'}\n")
        let validated = await CLIHarness.run(["validate", directory.path + "/pipeline.yml"])
        XCTAssertEqual(validated.status, 0, validated.stderr)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("template file-hashes: created"), run.stderr)
        // Without Templates, a manifest still needs its jobs.
        try directory.write("empty.yml", "version: 1\nendpoint: local\n")
        let empty = await CLIHarness.run(["validate", directory.path + "/empty.yml"])
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("'assemblies'"), empty.stderr)
    }

    func testAListingWithNothingToListSaysSo() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("files/a.txt", "a")
        try directory.write("pipeline.yml", "version: 1\nendpoint: local\nassemblies:\n  h:\n    inputs: [files/*.txt]\n    steps:\n      h: {robot: /file/hash, use: ':original'}\n")
        let listed = await CLIHarness.run(["templates", "list", directory.path + "/pipeline.yml"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, "No Templates: the endpoint has none, and the manifest declares none.\n")
    }

    func testRunCreatesThenUpdatesTheTemplateInPlaceAndReprocesses() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("files/a.txt", "hello")
        try directory.write("pipeline.yml", manifest("sha1"))
        let fresh = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(fresh.stdout.contains("+ template file-hashes  to create"), fresh.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/.pipeline/engine"), "planning leaves no engine behind")
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("template file-hashes: created"), first.stderr)
        let templates = directory.path + "/.pipeline/engine/templates"
        XCTAssertEqual(fileNames(in: templates).count, 1)

        let synced = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(synced.stdout.contains("= template file-hashes  unchanged ("), synced.stdout)
        let recorded = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/.pipeline/manifests/pipeline/templates.json")))
        XCTAssertEqual(recorded["local"]?["file-hashes"]?["id"]?.stringValue?.count, 32, "the Template's id is recorded in the workspace")
        try directory.write("pipeline.yml", manifest("sha256"))
        let changed = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(changed.stdout.contains("~ template file-hashes  to update ("), changed.stdout)
        XCTAssertTrue(changed.stdout.contains("      steps.hash.algorithm: \"sha1\" -> \"sha256\"\n"), "field by field, live: \(changed.stdout)")
        let offline = await CLIHarness.run(["plan", directory.path + "/pipeline.yml", "--offline"])
        XCTAssertTrue(offline.stdout.contains("Templates (against the last sync to local, not the endpoint itself: --offline)"), offline.stdout)
        XCTAssertTrue(offline.stdout.contains("~ template file-hashes  to update ("), offline.stdout)
        let diff = await CLIHarness.run(["diff", directory.path + "/pipeline.yml", "--exit-code"])
        XCTAssertEqual(diff.status, 2, "a changed Template re-processes the jobs that use it: \(diff.stdout)")
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let events = second.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }
        let template = try XCTUnwrap(events.first { $0["event"] == .string("template") })
        XCTAssertEqual(template["action"], .string("updated"))
        XCTAssertEqual(fileNames(in: templates).count, 1, "updated in place, never duplicated")
        let results = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/results.json")))
        XCTAssertEqual(results["assemblies"]?.arrayValue?.first?["results"]?["hash"]?.arrayValue?.first?["meta"]?["hash_algorithm"], .string("sha256"))

        try directory.write("files/b.txt", "more")
        let third = await CLIHarness.run(["run", directory.path + "/pipeline.yml", "--json"])
        let unchanged = third.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }.first { $0["event"] == .string("template") }
        XCTAssertEqual(unchanged?["action"], .string("unchanged"), "an unchanged Template costs no write")
    }

    func testTemplateMistakesAreCaughtAtTheirLines() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("pipeline.yml", """
            version: 1
            templates:
              Bad_Name:
                steps: {h: {robot: /file/hash, use: ":original"}}
              closed-one:
                allow_steps_override: false
                steps: {h: {robot: /file/hash, use: ":original", algoritm: md5}}
            assemblies:
              a: {inputs: [x], template: closed-on}
              b: {inputs: [x], template: closed-one, steps: {s: {robot: /file/hash, use: ":original"}}}
            """)
        let result = await CLIHarness.run(["validate", directory.path + "/pipeline.yml", "--json"])
        XCTAssertEqual(result.status, 1)
        let ids = (try JSONValue.parse(Data(result.stdout.utf8))["diagnostics"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        XCTAssertEqual(Set(ids), ["manifest.bad-template-name", "manifest.unknown-parameter", "manifest.unknown-template", "manifest.template-denies-steps"])
        // A job using the badly named Template gets that one error, not a second claim that it is undeclared.
        try directory.write("named.yml", "version: 1\ntemplates:\n  Bad_Name:\n    steps: {h: {robot: /file/hash, use: ':original'}}\nassemblies:\n  a: {inputs: [x], template: Bad_Name}\n")
        let named = await CLIHarness.run(["validate", directory.path + "/named.yml", "--json"])
        let namedIDs = (try JSONValue.parse(Data(named.stdout.utf8))["diagnostics"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        XCTAssertEqual(namedIDs, ["manifest.bad-template-name"])

        // A job's own steps may use its Template's steps (the service merges them), and any step of
        // a Template the manifest does not manage; nothing else.
        try directory.write("uses.yml", """
            version: 1
            templates:
              site-thumbs:
                steps: {thumb: {robot: /image/resize, use: ":original", width: 10}}
            assemblies:
              a: {inputs: [x], allow_empty: true, template: site-thumbs, steps: {h: {robot: /file/hash, use: thumb}}}
              b: {inputs: [x], allow_empty: true, template_id: abc123, steps: {h: {robot: /file/hash, use: remote-step}}}
              c: {inputs: [x], allow_empty: true, template: site-thumbs, steps: {h: {robot: /file/hash, use: thumbs}}}
            """)
        let uses = await CLIHarness.run(["validate", directory.path + "/uses.yml"])
        XCTAssertEqual(uses.stderr.components(separatedBy: "error:").count - 1, 1, uses.stderr)
        XCTAssertTrue(uses.stderr.contains("uses.yml:8:98: error: step 'h' uses 'thumbs', which is not a step of this job or its Template"), uses.stderr)

        // The local engine runs few robots: a Template's steps are held to them like a job's.
        try directory.write("local.yml", """
            version: 1
            endpoint: local
            templates:
              video-clips:
                steps:
                  clip: {robot: /video/merge, use: ":original"}
            assemblies:
              a: {inputs: [x], allow_empty: true, template: video-clips}
            """)
        let local = await CLIHarness.run(["validate", directory.path + "/local.yml"])
        XCTAssertEqual(local.status, 1)
        XCTAssertTrue(local.stderr.contains("local.yml:6:7: error: step 'clip' uses /video/merge, which the local engine does not run"), local.stderr)
    }

    func testRunBringsEveryDeclaredTemplateInLineEvenWhenNothingElseRuns() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("files/a.txt", "hello")
        let spare = "  spare-hashes:\n    steps:\n      h: {robot: /file/hash, use: \":original\", algorithm: md5}\n"
        try directory.write("pipeline.yml", manifest("sha1").replacingOccurrences(of: "templates:\n", with: "templates:\n" + spare))
        let first = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("template spare-hashes: created"), "declared, used by no job: \(first.stderr)")
        // Changed on the service behind the manifest's back; the next run has nothing to process.
        // Another manifest in the same folder shares its local engine (as another team's on one account).
        try directory.write("admin.yml", manifest("sha512"))
        let drifted = await CLIHarness.run(["templates", "sync", directory.path + "/admin.yml"])
        XCTAssertTrue(drifted.stdout.contains("updated file-hashes"), drifted.stdout + drifted.stderr)
        let second = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("template file-hashes: updated"), "drift repaired with every Assembly cached: \(second.stderr)")
        let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"])
        XCTAssertTrue(plan.stdout.contains("= template file-hashes") && plan.stdout.contains("= template spare-hashes"), plan.stdout)
    }

    func testPlanFallsBackToTheLastSyncWhenTheEndpointCannotBeAsked() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("files/a.txt", "hello")
        let unreachable = manifest("sha1").replacingOccurrences(of: "endpoint: local", with: "endpoint: http://127.0.0.1:9\nauth: {key: k}")
        try directory.write("pipeline.yml", unreachable)
        for (environment, reason) in [([String: String](), "TRANSLOADIT_SECRET is not set"), (["TRANSLOADIT_SECRET": "s"], "127.0.0.1:9")] {
            let plan = await CLIHarness.run(["plan", directory.path + "/pipeline.yml"], environment: environment)
            XCTAssertEqual(plan.status, 0, "the Assemblies are planned all the same: \(plan.stderr)")
            XCTAssertTrue(plan.stdout.contains("Templates (against the last sync to http://127.0.0.1:9, not the endpoint itself: "), plan.stdout)
            XCTAssertTrue(plan.stdout.contains("+ template file-hashes  to create"), plan.stdout)
            XCTAssertTrue(plan.stderr.contains("warning: Templates not compared with http://127.0.0.1:9: ") && plan.stderr.contains(reason), plan.stderr)
        }
    }

    func testListPullSyncAndPrune() async throws {
        let directory = try TemporaryDirectory(prefix: "templates")
        defer { directory.remove() }
        try directory.write("pipeline.yml", manifest("sha1"))
        let path = directory.path + "/pipeline.yml"
        let before = await CLIHarness.run(["templates", "list", path])
        XCTAssertEqual(before.stdout, "+ file-hashes\n", before.stderr)
        let synced = await CLIHarness.run(["templates", "sync", path])
        XCTAssertTrue(synced.stdout.hasPrefix("created file-hashes  "), synced.stdout + synced.stderr)
        let same = await CLIHarness.run(["templates", "list", path])
        XCTAssertTrue(same.stdout.hasPrefix("= file-hashes  "), same.stdout)
        let pulled = await CLIHarness.run(["templates", "pull", path, "file-hashes"])
        XCTAssertTrue(pulled.stdout.contains("allow_steps_override: false") && pulled.stdout.contains(#""algorithm":"sha1""#), pulled.stdout)
        // What pull prints is manifest YAML: pasted into a manifest, it is the same Template.
        try directory.write("pasted.yml", "version: 1\nendpoint: local\n" + pulled.stdout + "assemblies:\n  a: {inputs: [x], allow_empty: true, template: file-hashes}\n")
        let pasted = await CLIHarness.run(["templates", "list", directory.path + "/pasted.yml"])
        XCTAssertTrue(pasted.stdout.hasPrefix("= file-hashes"), pasted.stdout + pasted.stderr)

        try directory.write("pipeline.yml", manifest("sha1").replacingOccurrences(of: "file-hashes", with: "new-hashes"))
        try directory.write("files/a.txt", "hello")
        let renamed = await CLIHarness.run(["plan", path])
        XCTAssertTrue(renamed.stdout.contains("+ template new-hashes  to create"), renamed.stdout)
        XCTAssertTrue(renamed.stdout.contains("1 more Template not declared here: `pipeline plan --prune`"), renamed.stdout)
        let prunable = await CLIHarness.run(["plan", path, "--prune"])
        XCTAssertTrue(prunable.stdout.contains("- template file-hashes  not declared: `pipeline templates sync --prune` deletes it ("), prunable.stdout)
        // Another manifest's Template on the same account is never this one's to delete.
        try directory.write("other.yml", manifest("sha1").replacingOccurrences(of: "file-hashes", with: "other-hashes"))
        let other = await CLIHarness.run(["templates", "sync", directory.path + "/other.yml"])
        XCTAssertTrue(other.stdout.contains("created other-hashes"), other.stdout + other.stderr)
        let listed = await CLIHarness.run(["plan", path, "--prune"])
        XCTAssertTrue(listed.stdout.contains("- template file-hashes") && !listed.stdout.contains("other-hashes"), "only this manifest's: \(listed.stdout)")
        // Nothing can be asked here: without --yes nothing is deleted.
        let unasked = await CLIHarness.run(["templates", "sync", path, "--prune"])
        XCTAssertEqual(unasked.status, 1)
        XCTAssertTrue(unasked.stderr.contains("pass --yes") && unasked.stderr.contains("file-hashes"), unasked.stderr)
        XCTAssertFalse(unasked.stdout.contains("deleted"), unasked.stdout)
        // A record planted in the state (a cache, a commit) naming the other manifest's Template
        // by its name and id does not make it this manifest's: its content is not what this one synced.
        let templatesFile = directory.path + "/.pipeline/manifests/pipeline/templates.json"
        let otherID = try XCTUnwrap(other.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        var records = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: templatesFile))).objectValue ?? [:]
        var local = records["local"]?.objectValue ?? [:]
        local["other-hashes"] = .object(["id": .string(otherID), "content_sha256": .string(String(repeating: "0", count: 64))])
        records["local"] = .object(local)
        try JSONValue.object(records).serialized().write(toFile: templatesFile, atomically: true, encoding: .utf8)
        let pruned = await CLIHarness.run(["templates", "sync", path, "--prune", "--yes"])
        XCTAssertTrue(pruned.stdout.contains("deleted file-hashes"), pruned.stdout + pruned.stderr)
        XCTAssertFalse(pruned.stdout.contains("deleted other-hashes"), pruned.stdout)
        XCTAssertTrue(pruned.stderr.contains("leaving 1 Template this manifest did not make, that changed since it synced them, or that another manifest records"), pruned.stderr)
        let survivor = await CLIHarness.run(["templates", "list", directory.path + "/other.yml"])
        XCTAssertTrue(survivor.stdout.hasPrefix("= other-hashes"), "the other manifest's Template is still there: \(survivor.stdout)")
        // Nor does a copy of the other manifest's own record, content digest and all.
        let otherRecord = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: directory.path + "/.pipeline/manifests/other/templates.json")))
        records = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: templatesFile))).objectValue ?? [:]
        local = records["local"]?.objectValue ?? [:]
        local["other-hashes"] = otherRecord["local"]?["other-hashes"]
        records["local"] = .object(local)
        try JSONValue.object(records).serialized().write(toFile: templatesFile, atomically: true, encoding: .utf8)
        let copied = await CLIHarness.run(["templates", "sync", path, "--prune", "--yes"])
        XCTAssertFalse(copied.stdout.contains("deleted other-hashes"), copied.stdout + copied.stderr)
        let prunedPlan = await CLIHarness.run(["plan", path])
        XCTAssertFalse(prunedPlan.stdout.contains("file-hashes"), "a pruned Template leaves the record: \(prunedPlan.stdout)")
        let after = await CLIHarness.run(["templates", "list", path])
        XCTAssertTrue(after.stdout.contains("= new-hashes") && !after.stdout.contains("file-hashes"), after.stdout)
    }
}
