import Basics
import Foundation
import Spec
import XCTest

/// Step and job names are one line of visible text: a control character or line break, written
/// with YAML's escapes, is refused where the name is, before the name reaches a plan or a file.
final class StepNameTests: XCTestCase {
    private func manifest(stepName: String, job: String = "a") -> String {
        """
        version: 1
        endpoint: local
        assemblies:
          \(job):
            inputs: ["images/*.png"]
            steps:
              \(stepName):
                robot: /image/resize
                use: ":original"
                width: 100
        """
    }

    private func decode(_ text: String) -> Loaded<Manifest> {
        ManifestLoader(environment: [:]).decode(Data(text.utf8), file: "pipeline.yml")
    }

    func testAStepNameThatWouldForgePolicyLinesIsRefusedAtItsPlace() throws {
        let loaded = decode(manifest(stepName: #""x\n/http/import: {url: {type: string}}\nfields: {allowed: [anything]}\n#""#))
        XCTAssertNil(loaded.value)
        let diagnostic = try XCTUnwrap(loaded.diagnostics.first { $0.id == "manifest.bad-name" }, "\(loaded.diagnostics)")
        XCTAssertEqual(diagnostic.location, SourceLocation(file: "pipeline.yml", line: 7, column: 7))
        XCTAssertEqual(diagnostic.severity, .error)
        XCTAssertTrue(diagnostic.message.contains("U+000A"), diagnostic.message)
        XCTAssertFalse(diagnostic.message.contains("\n"), "the name is shown escaped: \(diagnostic.message)")
        XCTAssertTrue(diagnostic.hint?.contains("control characters") == true, "\(diagnostic.hint ?? "")")
    }

    func testEveryKindOfControlCharacterIsRefused() {
        for escape in [#"\t"#, #"\r"#, #"\0"#, #"\x7F"#, #"\x85"#, #"\x9B"#, #"\u2028"#, #"\u2029"#, #"\e[31m"#] {
            let loaded = decode(manifest(stepName: "\"step\(escape)x\""))
            XCTAssertNil(loaded.value, escape)
            XCTAssertEqual(loaded.diagnostics.map(\.id), ["manifest.bad-name"], escape)
            XCTAssertEqual(loaded.diagnostics.first?.location?.line, 7, escape)
        }
    }

    func testATemplateStepAndAJobNameAreRefusedToo() {
        let template = decode("""
            version: 1
            endpoint: local
            templates:
              site-thumbs:
                steps:
                  "a\\u2028b": {robot: /image/resize, use: ":original", width: 10}
            assemblies:
              a: {inputs: [x], allow_empty: true, template: site-thumbs}
            """)
        XCTAssertNil(template.value)
        XCTAssertTrue(template.diagnostics.contains { $0.id == "manifest.bad-name" && $0.location?.line == 6 }, "\(template.diagnostics)")
        let job = decode(manifest(stepName: "s", job: #""a\nb""#))
        XCTAssertNil(job.value)
        XCTAssertEqual(job.diagnostics.first?.id, "manifest.bad-name")
        XCTAssertEqual(job.diagnostics.first?.location?.line, 4)
    }

    func testOddButPrintableStepNamesAreKept() throws {
        for name in [#""a # b""#, #""a: b""#, #"'it''s'"#, #""say \"hi\"""#, "\"- x\"", "\"名前 ✓\""] {
            let loaded = decode(manifest(stepName: name))
            XCTAssertEqual(loaded.diagnostics.filter { $0.severity == .error }.map(\.id), [], name)
            XCTAssertEqual(loaded.value?.jobs.first?.steps.count, 1, name)
        }
    }
}
