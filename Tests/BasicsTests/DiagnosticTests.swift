import Basics
import XCTest

final class DiagnosticTests: XCTestCase {
    private func at(_ file: String, _ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    func testSortedByLocation() {
        let diagnostics = [
            Diagnostic.error("d1", "m", at: at("b.yml", 1, 1)),
            Diagnostic.error("d2", "m", at: at("a.yml", 3, 5)),
            Diagnostic.error("d3", "m"),
            Diagnostic.error("d4", "m", at: at("a.yml", 3, 2)),
            Diagnostic.error("d5", "m", at: at("a.yml", 1, 9)),
            Diagnostic.warning("d6", "m"),
            Diagnostic.warning("d7", "m", at: at("a.yml", 3, 2)),
            Diagnostic.error("d8", "m", at: at("a.yml", 10, 1)),
        ]
        XCTAssertEqual(
            diagnostics.sortedByLocation().map(\.id), ["d5", "d4", "d7", "d2", "d8", "d1", "d3", "d6"])
    }

    func testUniquedKeepsFirstOccurrences() {
        let a = Diagnostic.error("x.a", "one", at: at("a.yml", 1, 1))
        let b = Diagnostic.error("x.b", "two")
        let aWithHint = Diagnostic.error("x.a", "one", at: at("a.yml", 1, 1), hint: "differs")
        let c = Diagnostic.warning("x.c", "three")
        XCTAssertEqual([a, b, a, aWithHint, c, b].uniqued(), [a, b, aWithHint, c])
    }

    func testContainsErrors() {
        XCTAssertFalse([Diagnostic.warning("x.w", "w")].containsErrors)
        XCTAssertTrue([Diagnostic.warning("x.w", "w"), Diagnostic.error("x.e", "e")].containsErrors)
        XCTAssertFalse([Diagnostic]().containsErrors)
    }

    func testSeverityOrder() {
        XCTAssertLessThan(Diagnostic.Severity.error, .warning)
        XCTAssertLessThan(Diagnostic.Severity.warning, .note)
    }

    func testJSONForm() {
        let diagnostic = Diagnostic.error(
            "x.y", "m", at: at("p.yml", 2, 3), hint: "h",
            notes: [.init("n"), .init("there", at: at("q.yml", 1, 4))])
        XCTAssertEqual(
            diagnostic.json.serialized(),
            #"{"column":3,"file":"p.yml","hint":"h","id":"x.y","line":2,"message":"m","#
                + #""notes":[{"message":"n"},{"column":4,"file":"q.yml","line":1,"message":"there"}],"severity":"error"}"#)
        XCTAssertEqual(
            Diagnostic.warning("x.w", "w").json.serialized(), #"{"id":"x.w","message":"w","severity":"warning"}"#)
    }

    func testDiagnosticsError() {
        let one = Diagnostic.error("x.y", "m")
        XCTAssertEqual(DiagnosticsError(one).diagnostics, [one])
        XCTAssertEqual(DiagnosticsError([one, one]).diagnostics, [one, one])
    }
}

final class SourceStoreTests: XCTestCase {
    func testLines() {
        var store = SourceStore()
        store.add(file: "a.yml", text: "first\nsecond\n\nfourth")
        XCTAssertEqual(store.line(1, in: "a.yml"), "first")
        XCTAssertEqual(store.line(2, in: "a.yml"), "second")
        XCTAssertEqual(store.line(3, in: "a.yml"), "")
        XCTAssertEqual(store.line(4, in: "a.yml"), "fourth")
        XCTAssertNil(store.line(5, in: "a.yml"))
        XCTAssertNil(store.line(0, in: "a.yml"))
        XCTAssertNil(store.line(1, in: "b.yml"))
    }

    func testCRLFLineEndings() {
        var store = SourceStore()
        store.add(file: "a.yml", text: "first\r\nsecond\r\n")
        XCTAssertEqual(store.line(1, in: "a.yml"), "first")
        XCTAssertEqual(store.line(2, in: "a.yml"), "second")
        XCTAssertEqual(store.line(3, in: "a.yml"), "")
    }

    func testMergeReplacesTheSameFile() {
        var first = SourceStore()
        first.add(file: "a.yml", text: "old")
        first.add(file: "keep.yml", text: "kept")
        var second = SourceStore()
        second.add(file: "a.yml", text: "new")
        first.merge(second)
        XCTAssertEqual(first.line(1, in: "a.yml"), "new")
        XCTAssertEqual(first.line(1, in: "keep.yml"), "kept")
    }

    func testLocationDescription() {
        XCTAssertEqual(SourceLocation(file: "dir/p.yml", line: 12, column: 7).description, "dir/p.yml:12:7")
    }
}
