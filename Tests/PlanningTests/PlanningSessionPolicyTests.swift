import Foundation
import Basics
import Planning
import TestSupport
import XCTest

/// Planning end to end where the policy or the manifest's folder boundary says no.
final class PlanningSessionPolicyTests: XCTestCase {
    private func makeSite(policy: String) throws -> TemporaryDirectory {
        let site = try TemporaryDirectory()
        for (index, name) in ["a.png", "b.png", "c.png", "d.png"].enumerated() {
            try site.write("images/\(name)", data: TestImages.png(width: index + 1, height: 1))
        }
        try site.write("images/notes.txt", "abc")
        try site.write("policy.yml", policy)
        return site
    }

    /// An endpoint other than the hosted service: these plans are not about where results stay
    /// (on the hosted service, a job that neither stores nor downloads them is warned about).
    static let notHosted = ["TRANSLOADIT_ENDPOINT": "http://127.0.0.1:9"]

    private func planManifest(_ manifest: String, in site: TemporaryDirectory, at relative: String = "pipeline.yml",
                      policyPath: String? = nil) throws -> (Loaded<Plan>, String) {
        let path = try site.write(relative, manifest)
        return (PlanningSession(environment: Self.notHosted, policyPath: policyPath).plan(manifestPath: path), path)
    }

    private let resizePolicy = "version: 1\nrobots:\n  /image/resize:\n    width: {type: integer, min: 1, max: 4000}\n"

    func testPolicyFindingsPointAtTheManifestValues() throws {
        let site = try makeSite(policy: resizePolicy)
        defer { site.remove() }
        let manifest = """
            version: 1
            name: site-images
            policy: policy.yml
            assemblies:
              thumbs:
                inputs:
                  - images/*.png
                steps:
                  thumb:
                    robot: /image/resize
                    use: :original
                    width: 5000
                    height: 100
            """
        let (loaded, path) = try planManifest(manifest, in: site)
        XCTAssertNil(loaded.value)
        let note = Diagnostic.Note("policy: \(site.path)/policy.yml")
        XCTAssertEqual(loaded.diagnostics, [
            Diagnostic(id: "policy.option-not-allowed", message: "option 'height' of /image/resize is not allowed (step 'thumb')",
                       location: SourceLocation(file: path, line: 13, column: 9), notes: [note],
                       hint: "the policy allows these options of /image/resize: width; /image/resize itself takes 'height': ask the policy's owners to allow it"),
            Diagnostic(id: "policy.option-value",
                       message: "option 'width' of /image/resize must be at most 4000, found 5000 (step 'thumb')",
                       location: SourceLocation(file: path, line: 12, column: 16), notes: [note]),
        ])
        // The policy's text is available for rendering excerpts.
        XCTAssertEqual(loaded.sources.line(4, in: "\(site.path)/policy.yml"), "    width: {type: integer, min: 1, max: 4000}")
    }

    func testASignerPolicyWithoutTemplateListingIsWarnedAboutAtTheTemplate() throws {
        let site = try makeSite(policy: "version: 1\ntemplates: {allowed: [site-thumbs]}\nrobots:\n  /image/resize: {use: {}, width: {}}\n")
        defer { site.remove() }
        func manifest(signer: Bool) -> String {
            """
            version: 1
            policy: policy.yml
            auth:
              key: k
              \(signer ? "signer: {url: 'https://signer.example/sign', token: t}" : "")
            templates:
              site-thumbs:
                steps:
                  thumb: {robot: /image/resize, use: ":original", width: 10}
            assemblies:
              thumbs: {inputs: [images/*.png], template: site-thumbs}
            """
        }
        let (signed, path) = try planManifest(manifest(signer: true), in: site)
        XCTAssertNotNil(signed.value, "a warning, not an error")
        let warning = try XCTUnwrap(signed.diagnostics.first { $0.id == "policy.template-listing" })
        XCTAssertEqual(warning.location, SourceLocation(file: path, line: 7, column: 3))
        XCTAssertEqual(warning.hint, "ask the policy owners to add 'allow_listing: true' under 'templates:'")
        let (secret, _) = try planManifest(manifest(signer: false), in: site)
        XCTAssertFalse(secret.diagnostics.contains { $0.id == "policy.template-listing" }, "signing with the secret needs no permission")
    }

    func testFileLimitsPointAtTheJob() throws {
        let site = try makeSite(policy: "version: 1\nlimits: {files_per_assembly: 1}\nrobots: {/file/filter: ~}\n")
        defer { site.remove() }
        let manifest = """
            version: 1
            policy: policy.yml
            assemblies:
              pairs:
                inputs: [images/*.png]
                batch: 2
                steps: {keep: {robot: /file/filter}}
            """
        let (loaded, path) = try planManifest(manifest, in: site)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.too-many-files", message: "an Assembly of 2 files exceeds the limit of 1",
            location: SourceLocation(file: path, line: 4, column: 3), notes: [.init("policy: \(site.path)/policy.yml")],
            hint: "lower 'batch' to 1 or less")])
    }

    func testPolicyPathReplacesTheManifestsPolicy() throws {
        let site = try makeSite(policy: resizePolicy)
        defer { site.remove() }
        let strict = try site.write("strict.yml", "version: 1\nrobots: {}\n")
        let manifest = """
            version: 1
            policy: policy.yml
            assemblies:
              docs:
                inputs: [images/*.txt]
                steps:
                  keep:
                    robot: /file/filter
            """
        let (loaded, path) = try planManifest(manifest, in: site, policyPath: strict)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.robot-not-allowed", message: "robot /file/filter is not allowed (step 'keep')",
            location: SourceLocation(file: path, line: 8, column: 16), notes: [.init("policy: \(strict)")],
            hint: "this policy allows no robots")])
    }

    private let outsideManifest = """
        version: 1
        assemblies:
          shared:
            inputs: ["../x/*.txt"]
            steps:
              keep:
                robot: /file/filter
        """

    func testPatternsOutsideTheManifestFolderAreRefused() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("x/a.txt", "abc")
        let (loaded, path) = try planManifest(outsideManifest, in: site, at: "site/pipeline.yml")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "plan.outside-folder", message: "pattern '../x/*.txt' reaches outside the manifest's folder",
            location: SourceLocation(file: path, line: 4, column: 14),
            hint: "keep inputs below the manifest's folder, or set 'allow_outside: true' on job 'shared'")])
    }

    func testAllowOutside() throws {
        let site = try TemporaryDirectory()
        defer { site.remove() }
        try site.write("x/a.txt", "abc")
        let manifest = outsideManifest.replacingOccurrences(of: "    inputs:", with: "    allow_outside: true\n    inputs:")
        let (loaded, _) = try planManifest(manifest, in: site, at: "site/pipeline.yml")
        XCTAssertEqual(loaded.diagnostics, [])
        XCTAssertEqual(loaded.value?.assemblies.map(\.files), [[PlannedFile(
            path: "../x/a.txt", size: 3, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")]])
    }
}
