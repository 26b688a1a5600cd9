import Foundation
import Spec
import Basics
import TestSupport
import XCTest

/// Every bad-manifest fixture gives exactly the expected diagnostics at exactly the expected places.
final class BadManifestTests: XCTestCase {
    /// One expected diagnostic: id, line, column.
    struct Expected: Equatable, CustomStringConvertible {
        var id: String
        var line: Int
        var column: Int
        init(_ id: String, _ line: Int, _ column: Int) {
            self.id = id
            self.line = line
            self.column = column
        }
        var description: String { "\(id)@\(line):\(column)" }
    }

    static let cases: [(fixture: String, expected: [Expected])] = [
        ("malformed.yml", [Expected("yaml.syntax", 5, 10)]),
        ("tabs.yml", [Expected("yaml.syntax", 4, 1)]),
        ("duplicate-keys.yml", [Expected("yaml.duplicate-key", 9, 9)]),
        ("unknown-keys.yml", [Expected("manifest.unknown-key", 5, 5), Expected("manifest.unknown-key", 14, 5)]),
        ("wrong-types.yml", [
            Expected("manifest.wrong-type", 1, 10), Expected("manifest.wrong-type", 4, 13),
            Expected("manifest.wrong-type", 5, 12), Expected("manifest.wrong-type", 6, 18),
        ]),
        ("alias-bomb.yml", [Expected("yaml.alias-expansion", 6, 11)]),
        ("unset-variable.yml", [Expected("manifest.unset-variable", 4, 15), Expected("manifest.unset-variable", 8, 16)]),
        ("binary.yml", [Expected("yaml.binary-file", 2, 12)]),
        ("invalid-utf8.yml", [Expected("yaml.invalid-utf8", 2, 10)]),
        ("steps.yml", [
            Expected("manifest.missing-robot", 6, 7), Expected("manifest.unknown-step", 11, 23),
            Expected("manifest.bad-robot", 13, 16), Expected("manifest.unknown-step", 14, 14),
            Expected("manifest.no-steps", 15, 3),
        ]),
        ("secrets.yml", [Expected("manifest.secret-in-manifest", 3, 8), Expected("manifest.secret-in-manifest", 4, 3)]),
        ("values.yml", [
            Expected("manifest.bad-endpoint", 2, 11), Expected("manifest.bad-duration", 4, 15),
            Expected("manifest.insecure-signer", 6, 10), Expected("manifest.no-steps", 8, 3),
            Expected("manifest.no-inputs", 9, 13), Expected("manifest.out-of-range", 10, 12),
            Expected("manifest.bad-url", 11, 17), Expected("manifest.wrong-type", 12, 18),
        ]),
    ]

    func testEveryFixtureGivesExactlyItsDiagnostics() throws {
        for (fixture, expected) in Self.cases {
            let loaded = try load(fixture)
            XCTAssertNil(loaded.value, fixture)
            let actual = loaded.diagnostics.sortedByLocation().map {
                Expected($0.id, $0.location?.line ?? 0, $0.location?.column ?? 0)
            }
            XCTAssertEqual(actual, expected, fixture)
            for diagnostic in loaded.diagnostics {
                XCTAssertEqual(diagnostic.location?.file, fixture, "\(fixture): every diagnostic names the file")
                XCTAssertEqual(diagnostic.severity, .error)
            }
        }
    }

    func testUnknownKeysSuggestTheClosestKey() throws {
        let hints = try load("unknown-keys.yml").diagnostics.sortedByLocation().map(\.hint)
        XCTAssertEqual(hints, ["did you mean 'batch'?", "did you mean 'fields'?"])
    }

    func testDuplicateKeyPointsAtTheFirstOne() throws {
        let diagnostic = try XCTUnwrap(load("duplicate-keys.yml").diagnostics.first)
        XCTAssertEqual(diagnostic.notes.first?.location, SourceLocation(file: "duplicate-keys.yml", line: 8, column: 9))
    }

    func testTabsGetAHintAboutIndentation() throws {
        let diagnostic = try XCTUnwrap(load("tabs.yml").diagnostics.first)
        XCTAssertEqual(diagnostic.hint, "YAML does not allow tabs for indentation; indent with spaces")
    }

    func testAliasBombIsRefusedQuickly() throws {
        let start = ContinuousClock.now
        _ = try load("alias-bomb.yml")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2), "expansion must be bounded, not attempted")
    }

    func testRenderedDiagnosticsMatchGoldenFiles() throws {
        for fixture in ["steps.yml", "malformed.yml", "unset-variable.yml"] {
            let loaded = try load(fixture)
            let rendered = DiagnosticRenderer(sources: loaded.sources).render(loaded.diagnostics)
            try Golden.assertMatches(rendered, file: Fixtures.path("golden/\(fixture).txt"))
        }
    }

    func testGitHubActionsAnnotations() throws {
        let loaded = try load("unknown-keys.yml")
        let rendered = DiagnosticRenderer(sources: loaded.sources, githubActions: true).render(loaded.diagnostics)
        XCTAssertTrue(rendered.contains(
            "::error file=unknown-keys.yml,line=5,col=5::unknown key 'bach' in job 'thumbs' (hint: did you mean 'batch'?)\n"))
    }

    private func load(_ fixture: String) throws -> Loaded<Manifest> {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(fixture)))
        return ManifestLoader(environment: [:]).decode(data, file: fixture)
    }
}
