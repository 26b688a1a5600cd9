import Basics
import Foundation
import TestSupport
import XCTest
import YAML

/// `pipeline policy suggest` run as a user runs it: names and values from the manifest come out
/// as data in the suggested policy, never as lines of it.
final class PolicySuggestNamesTests: XCTestCase {
    /// A step name that, spliced raw into the policy's comments, would allow /http/import and any field.
    static let forgingName = #""x\n/http/import: {url: {type: string}}\nfields: {allowed: [anything]}\n#""#

    private func manifest(stepNames: [String]) -> String {
        """
        version: 1
        endpoint: local
        assemblies:
          a:
            inputs: ["images/*.png"]
            fields: {"f: #x": "v", "it's \\"quoted\\"": 1}
            steps:
        \(stepNames.map { "      \($0): {robot: /image/resize, use: \":original\", width: 100}\n" }.joined())
        """
    }

    func testTheForgingStepNameIsRefusedAndNoPolicyIsSuggested() throws {
        let directory = try TemporaryDirectory(prefix: "policy-forge")
        defer { directory.remove() }
        try directory.write("images/a.png", data: TestImages.png(width: 8, height: 6))
        try directory.write("pipeline.yml", manifest(stepNames: [Self.forgingName]))
        let binary = ProcessRunner.pipelineExecutable
        let validated = try ProcessRunner.run(binary, ["validate", "pipeline.yml"], in: directory.path)
        XCTAssertEqual(validated.status, 1, validated.stdout + validated.stderr)
        XCTAssertTrue(validated.stderr.contains("pipeline.yml:8:7: error: step name "), validated.stderr)
        XCTAssertTrue(validated.stderr.contains("[manifest.bad-name]"), validated.stderr)
        XCTAssertTrue(validated.stderr.contains("hint: "), validated.stderr)
        let suggested = try ProcessRunner.run(binary, ["policy", "suggest", "pipeline.yml"], in: directory.path)
        XCTAssertEqual(suggested.status, 1, suggested.stdout)
        XCTAssertFalse(suggested.stdout.contains("/http/import"), suggested.stdout)
    }

    func testTheManifestSchemaRefusesTheForgingNameAsYouType() throws {
        let directory = try TemporaryDirectory(prefix: "policy-schema")
        defer { directory.remove() }
        let checker = try PythonPeers.require("check-jsonschema")
        let schema = PackageRoot.path + "/schemas/manifest.schema.json"
        let forging = try directory.write("forging.yml", manifest(stepNames: [Self.forgingName]))
        let refused = try ProcessRunner.run(checker, ["--schemafile", schema, forging])
        XCTAssertNotEqual(refused.status, 0, refused.stdout + refused.stderr)
        let odd = try directory.write("odd.yml", manifest(stepNames: [#""a # b""#, #""x: y""#, #"'it''s'"#]))
        let accepted = try ProcessRunner.run(checker, ["--schemafile", schema, odd])
        XCTAssertEqual(accepted.status, 0, accepted.stdout + accepted.stderr)
    }

    func testOddButLegalNamesComeOutAsDataAndThePolicyParses() throws {
        let directory = try TemporaryDirectory(prefix: "policy-odd")
        defer { directory.remove() }
        try directory.write("images/a.png", data: TestImages.png(width: 8, height: 6))
        let names = [#""a # b""#, #""x: y""#, #"'it''s "quoted"'"#, #""- [z]""#, #""\u202Eevil""#]
        // The manifest's file name goes into the policy's first comment; this one would end it.
        let file = "odd\nrobots: {}\n# .yml"
        try directory.write(file, manifest(stepNames: names))
        let binary = ProcessRunner.pipelineExecutable
        let suggested = try ProcessRunner.run(binary, ["policy", "suggest", file, "--out", "policy.yml"], in: directory.path)
        XCTAssertEqual(suggested.status, 0, suggested.stderr)
        let text = try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8)
        let root = try XCTUnwrap(YAMLParser(file: "policy.yml").parse(Data(text.utf8)), text)
        XCTAssertEqual(root.pairs?.map(\.keyText), ["version", "max_expires_in", "limits", "fields", "robots"], text)
        let robots = try XCTUnwrap(root.pairs?.first { $0.keyText == "robots" }?.value.pairs)
        XCTAssertEqual(robots.map(\.keyText), ["/image/resize"], text)
        XCTAssertEqual(robots.first?.value.pairs?.map(\.keyText), ["width"], text)
        let fields = root.pairs?.first { $0.keyText == "fields" }?.value.pairs?.first { $0.keyText == "allowed" }?.value.elements
        XCTAssertEqual(fields?.compactMap { $0.scalar?.text }, ["f: #x", #"it's "quoted""#], text)
        // Every name is in the comment as it is, or escaped; no line of the file is made of one.
        XCTAssertTrue(text.contains("a/a # b"), text)
        XCTAssertTrue(text.contains(#"a/\u202Eevil"#), text)
        XCTAssertTrue(text.hasPrefix(#"# A policy that allows what odd\u000Arobots: {}\u000A# .yml declares"#), text)
        XCTAssertFalse(text.unicodeScalars.contains("\u{202E}"), text)
        // The manifest plans against the policy suggested for it.
        let planned = try ProcessRunner.run(binary, ["plan", file, "--policy", "policy.yml"], in: directory.path)
        XCTAssertEqual(planned.status, 0, planned.stderr)
    }
}
