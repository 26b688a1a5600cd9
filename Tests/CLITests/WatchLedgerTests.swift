@testable import CLI
import XCTest

/// A burst of file events comes down to what it did in the end: added, removed, renamed or changed.
final class WatchLedgerTests: XCTestCase {
    private func ledger(_ known: [String]) -> WatchLedger {
        var ledger = WatchLedger()
        for path in known { ledger.know(path) }
        return ledger
    }

    func testEachEventIsNamedByItsNetEffect() {
        var ledger = ledger(["/p/a", "/p/b", "/p/c", "/p/d"])
        ledger.record(.appeared, "/p/new")
        ledger.record(.written, "/p/new")
        ledger.record(.gone, "/p/a", cookie: 7)
        ledger.record(.appeared, "/p/sub/a", cookie: 7)
        ledger.record(.gone, "/p/b")
        ledger.record(.written, "/p/c")
        // A save by replacing: removed and made again is a change.
        ledger.record(.gone, "/p/d")
        ledger.record(.appeared, "/p/d")
        // A file made and removed within the burst is nothing.
        ledger.record(.appeared, "/p/passing")
        ledger.record(.gone, "/p/passing")
        let changes = ledger.settle()
        XCTAssertEqual(changes, WatchedChanges(added: ["/p/new"], removed: ["/p/b"], renamed: [.init(from: "/p/a", to: "/p/sub/a")], changed: ["/p/c", "/p/d"]))
        XCTAssertEqual(changes.described { $0 }, "added /p/new; renamed /p/a → /p/sub/a; removed /p/b; changed /p/c, /p/d")
        XCTAssertTrue(ledger.settle().isEmpty, "the next burst starts empty")
    }

    func testMovesChainAndAMoveOutOrInIsARemovalOrAnAddition() {
        var ledger = ledger(["/p/a", "/p/x"])
        ledger.record(.gone, "/p/a", cookie: 1)
        ledger.record(.appeared, "/p/b", cookie: 1)
        ledger.record(.gone, "/p/b", cookie: 2)
        ledger.record(.appeared, "/p/c", cookie: 2)
        ledger.record(.gone, "/p/x", cookie: 3)  // to a folder not watched
        ledger.record(.appeared, "/p/y", cookie: 4)  // from one not watched
        XCTAssertEqual(ledger.settle(), WatchedChanges(added: ["/p/y"], removed: ["/p/x"], renamed: [.init(from: "/p/a", to: "/p/c")]))
    }

    func testAFolderMovedKeepsWhatIsKnownInsideIt() {
        var ledger = ledger(["/p/dir", "/p/dir/a"])
        ledger.record(.gone, "/p/dir", cookie: 5, folder: true)
        ledger.record(.appeared, "/p/moved", cookie: 5, folder: true)
        ledger.record(.gone, "/p/moved/a")
        XCTAssertEqual(ledger.settle(), WatchedChanges(removed: ["/p/moved/a"], renamed: [.init(from: "/p/dir", to: "/p/moved")]))
    }

    func testNamesThatDifferOnlyByNormalizationAreTwoFilesAndAreShownPrintably() {
        let composed = "/p/caf\u{E9}", decomposed = "/p/cafe\u{301}"
        var ledger = ledger([composed])
        ledger.record(.appeared, decomposed)
        let changes = ledger.settle()
        XCTAssertEqual(changes.added.map { Array($0.utf8) }, [Array(decomposed.utf8)])
        XCTAssertTrue(changes.changed.isEmpty)
        var other = WatchLedger()
        other.record(.appeared, "/p/line\nbreak")
        XCTAssertEqual(other.settle().described { $0 }, "added /p/line break")
    }

    func testManyOfAKindAreCounted() {
        var ledger = WatchLedger()
        for name in ["a", "b", "c", "d", "e"] { ledger.record(.appeared, name) }
        XCTAssertEqual(ledger.settle().described { $0 }, "added a, b, c and 2 more")
    }
}
