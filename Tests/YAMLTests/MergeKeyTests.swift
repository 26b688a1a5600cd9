import Basics
import XCTest
import YAML

final class MergeKeyTests: XCTestCase {
    func testSingleMergeWithExplicitOverride() throws {
        let root = try parsedRoot("""
            base: &base
              a: 1
              b: 2
            job:
              <<: *base
              b: 3
              c: 4

            """)
        let job = try XCTUnwrap(root.member("job"))
        // Explicit pairs first in document order, then merged keys not already set; no '<<' pair.
        XCTAssertEqual(sketch(job), "{b: 3, c: 4, a: 1}")
        XCTAssertEqual(job.member("a")?.resolvedValue, .int(1))
        XCTAssertEqual(job.member("b")?.resolvedValue, .int(3))
        XCTAssertNil(job.member("<<"))
        // Merged pairs keep the locations of the anchored mapping.
        XCTAssertEqual(job.member("a")?.location, loc(2, 6))
        XCTAssertEqual(job.member("b")?.location, loc(6, 6))
        // The anchored mapping itself is unchanged.
        XCTAssertEqual(sketch(root.member("base")), "{a: 1, b: 2}")
    }

    func testExplicitKeyBeforeTheMergeAlsoWins() throws {
        let root = try parsedRoot("base: &base {a: 1, b: 2}\njob: {b: 9, <<: *base}\n")
        XCTAssertEqual(sketch(root.member("job")), "{b: 9, a: 1}")
    }

    func testListOfMergesFirstSourceWins() throws {
        let root = try parsedRoot("""
            x: &x {k: from-x, only_x: 1}
            y: &y {k: from-y, only_y: 2}
            z:
              <<: [*x, *y]
              own: 0

            """)
        XCTAssertEqual(sketch(root.member("z")), "{own: 0, k: from-x, only_x: 1, only_y: 2}")
    }

    func testMergeOfAnInlineMapping() throws {
        let root = try parsedRoot("job:\n  <<: {a: 1}\n  b: 2\n")
        XCTAssertEqual(sketch(root.member("job")), "{b: 2, a: 1}")
    }

    func testQuotedMergeKeyIsAnOrdinaryKey() throws {
        let root = try parsedRoot("m:\n  '<<': 1\n")
        XCTAssertEqual(sketch(root.member("m")), "{<<: 1}")
        XCTAssertEqual(root.member("m")?.member("<<")?.resolvedValue, .int(1))
    }

    func testMergingAScalarIsAnError() {
        XCTAssertEqual(parseFailure("a: &s hello\nb:\n  <<: *s\n"), [
            .error(
                "yaml.invalid-merge", "a merge key '<<' needs a mapping or a list of mappings, found a string",
                at: loc(3, 7), hint: "write '<<: *anchor' where '&anchor' names a mapping"),
        ])
    }

    func testMergingAPlainNumberIsAnError() {
        let diagnostics = parseFailure("<<: 5\n")
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.invalid-merge"])
        XCTAssertEqual(diagnostics.first?.location, loc(1, 5))
        XCTAssertEqual(
            diagnostics.first?.message, "a merge key '<<' needs a mapping or a list of mappings, found an integer")
    }

    func testScalarInAMergeListIsAnError() {
        let diagnostics = parseFailure("a: &m {x: 1}\nb:\n  <<: [*m, 3]\n")
        XCTAssertEqual(diagnostics.map(\.id), ["yaml.invalid-merge"])
        XCTAssertEqual(diagnostics.first?.location, loc(3, 12))
    }
}
