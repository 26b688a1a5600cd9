import Basics
import Foundation
import XCTest

/// A name as its bytes: the composed and decomposed spellings of `Crème`, one `String`, are two names.
final class ExactNameTests: XCTestCase {
    private let composed = "Cr\u{E8}me.jpg"
    private let decomposed = "Cre\u{300}me.jpg"

    func testSpellingsThatStringTakesAsOneAreTwoNames() {
        XCTAssertEqual(composed, decomposed, "Swift's String compares canonically: the cause")
        XCTAssertEqual(Set([composed, decomposed]).count, 1)
        XCTAssertNotEqual(ExactName(composed), ExactName(decomposed))
        XCTAssertEqual(Set([ExactName(composed), ExactName(decomposed), ExactName(composed)]).count, 2)
        let keyed = [ExactName(composed): 1, ExactName(decomposed): 2]
        XCTAssertEqual(keyed[ExactName(composed)], 1)
        XCTAssertEqual(keyed[ExactName(decomposed)], 2)
        XCTAssertEqual(ExactName(composed).description, composed)
    }

    func testTheSameBytesAreOneNameHoweverTheStringWasMade() {
        let made = String(decoding: Array(decomposed.utf8), as: UTF8.self)
        let bridged = NSString(string: decomposed) as String
        let sliced = String(("x" + decomposed).dropFirst())
        for other in [made, bridged, sliced] {
            XCTAssertEqual(ExactName(other), ExactName(decomposed))
            XCTAssertEqual(ExactName(other).hashValue, ExactName(decomposed).hashValue)
        }
        XCTAssertEqual(ExactName(""), "")
    }

    func testNamesSortByTheirBytes() {
        let names: [ExactName] = [ExactName(composed), "Crane.jpg", ExactName(decomposed), "cr.jpg", "Cr.jpg"]
        XCTAssertEqual(names.sorted().map { Array($0.text.utf8) }, ["Cr.jpg", "Crane.jpg", decomposed, composed, "cr.jpg"].map { Array($0.utf8) })
        XCTAssertTrue(ExactName(decomposed) < ExactName(composed), "'e' (0x65) before 0xC3")
        XCTAssertFalse(ExactName(composed) < ExactName(composed))
    }
}
