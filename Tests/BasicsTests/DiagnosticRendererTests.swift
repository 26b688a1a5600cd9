import Basics
import XCTest

final class DiagnosticRendererTests: XCTestCase {
    private func location(_ line: Int, _ column: Int, file: String = "p.yml") -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    private var sources: SourceStore {
        var store = SourceStore()
        store.add(file: "p.yml", text: "version: 1\nname: demo\n")
        return store
    }

    func testGoldenOutput() {
        let diagnostic = Diagnostic.error(
            "manifest.wrong-type", "name must be an integer", at: location(2, 3),
            hint: "write a whole number",
            notes: [.init("the key is declared here", at: location(1, 1)), .init("names are compared exactly")])
        let expected = [
            "p.yml:2:3: error: name must be an integer [manifest.wrong-type]",
            " 2 | name: demo",
            "   |   ^",
            "  p.yml:1:1: note: the key is declared here",
            "  note: names are compared exactly",
            "  hint: write a whole number",
            "1 error",
        ].joined(separator: "\n") + "\n"
        XCTAssertEqual(DiagnosticRenderer(sources: sources).render([diagnostic]), expected)
    }

    func testGutterWidensForLongLineNumbers() {
        var store = SourceStore()
        store.add(file: "p.yml", text: (1...12).map { "line\($0)" }.joined(separator: "\n"))
        let diagnostic = Diagnostic.warning("x.y", "look", at: location(12, 1))
        let expected = "p.yml:12:1: warning: look [x.y]\n 12 | line12\n    | ^\n"
        XCTAssertEqual(DiagnosticRenderer(sources: store).render(diagnostic), expected)
    }

    func testCaretLineKeepsTabs() {
        var store = SourceStore()
        store.add(file: "p.yml", text: "a:\n\tb: 1\n")
        let diagnostic = Diagnostic.error("yaml.syntax", "tab", at: location(2, 3))
        let expected = "p.yml:2:3: error: tab [yaml.syntax]\n 2 | \tb: 1\n   | \t ^\n"
        XCTAssertEqual(DiagnosticRenderer(sources: store).render(diagnostic), expected)
    }

    func testNoExcerptWhenTheLineIsUnknown() {
        let beyond = Diagnostic.error("x.y", "far", at: location(9, 1))
        XCTAssertEqual(DiagnosticRenderer(sources: sources).render(beyond), "p.yml:9:1: error: far [x.y]\n")
        let otherFile = Diagnostic.error("x.y", "elsewhere", at: location(1, 1, file: "q.yml"))
        XCTAssertEqual(DiagnosticRenderer(sources: sources).render(otherFile), "q.yml:1:1: error: elsewhere [x.y]\n")
    }

    func testDiagnosticWithoutLocation() {
        let diagnostic = Diagnostic.error("io.read", "cannot read 'm.yml'", hint: "check the path")
        let expected = "pipeline: error: cannot read 'm.yml' [io.read]\n  hint: check the path\n1 error\n"
        XCTAssertEqual(DiagnosticRenderer(sources: SourceStore()).render([diagnostic]), expected)
    }

    func testRenderSortsAndCounts() {
        let error = Diagnostic.error("b.err", "second", at: location(2, 1))
        let warning = Diagnostic.warning("a.warn", "first", at: location(1, 1))
        let expected = [
            "p.yml:1:1: warning: first [a.warn]",
            " 1 | version: 1",
            "   | ^",
            "p.yml:2:1: error: second [b.err]",
            " 2 | name: demo",
            "   | ^",
            "1 error, 1 warning",
        ].joined(separator: "\n") + "\n"
        XCTAssertEqual(DiagnosticRenderer(sources: sources).render([error, warning]), expected)
    }

    func testNothingToRender() {
        XCTAssertEqual(DiagnosticRenderer(sources: sources).render([Diagnostic]()), "")
        let note = Diagnostic(id: "x.note", severity: .note, message: "fyi")
        XCTAssertEqual(DiagnosticRenderer(sources: sources).render([note]), "pipeline: note: fyi [x.note]\n")
    }

    func testCount() {
        XCTAssertEqual(DiagnosticRenderer.count(errors: 1, warnings: 0), "1 error")
        XCTAssertEqual(DiagnosticRenderer.count(errors: 2, warnings: 0), "2 errors")
        XCTAssertEqual(DiagnosticRenderer.count(errors: 0, warnings: 3), "3 warnings")
        XCTAssertEqual(DiagnosticRenderer.count(errors: 1, warnings: 1), "1 error, 1 warning")
        XCTAssertEqual(DiagnosticRenderer.count(errors: 0, warnings: 0), "")
    }

    func testPlural() {
        XCTAssertEqual(plural(1, "file"), "1 file")
        XCTAssertEqual(plural(0, "file"), "0 files")
        XCTAssertEqual(plural(2, "match", "matches"), "2 matches")
    }
}

final class WorkflowCommandTests: XCTestCase {
    func testEscapesDataAndProperties() {
        let diagnostic = Diagnostic.error(
            "x.y", "50% done\r\nnext", at: SourceLocation(file: "dir/a:b,c%.yml", line: 4, column: 2), hint: "use 100%")
        XCTAssertEqual(
            DiagnosticRenderer(sources: SourceStore(), githubActions: true).workflowCommand(for: diagnostic),
            "::error file=dir/a%3Ab%2Cc%25.yml,line=4,col=2::50%25 done%0D%0Anext (hint: use 100%25)")
    }

    func testCommandPerSeverity() {
        let renderer = DiagnosticRenderer(sources: SourceStore(), githubActions: true)
        XCTAssertEqual(renderer.workflowCommand(for: .error("x.y", "a: b, c")), "::error::a: b, c")
        XCTAssertEqual(renderer.workflowCommand(for: .warning("x.y", "careful")), "::warning::careful")
        XCTAssertEqual(
            renderer.workflowCommand(for: Diagnostic(id: "x.y", severity: .note, message: "fyi")), "::notice::fyi")
    }

    func testRenderAppendsTheCommandInGitHubActions() {
        var store = SourceStore()
        store.add(file: "p.yml", text: "version: 1\nname: demo\n")
        let diagnostic = Diagnostic.error("x.y", "bad", at: SourceLocation(file: "p.yml", line: 2, column: 3), hint: "h")
        let expected = [
            "p.yml:2:3: error: bad [x.y]",
            " 2 | name: demo",
            "   |   ^",
            "  hint: h",
            "::error file=p.yml,line=2,col=3::bad (hint: h)",
        ].joined(separator: "\n") + "\n"
        XCTAssertEqual(DiagnosticRenderer(sources: store, githubActions: true).render(diagnostic), expected)
        XCTAssertFalse(DiagnosticRenderer(sources: store).render(diagnostic).contains("::error"))
    }
}
