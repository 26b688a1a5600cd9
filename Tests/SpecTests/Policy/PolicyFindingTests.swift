import Basics
import Spec
import XCTest

final class PolicyFindingTests: XCTestCase {
    private func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: "pipeline.yml", line: line, column: column)
    }

    /// `steps` at 8:5, `thumb` at 9:7 and `width: 5000` at 12:9 / 12:16.
    private var index: LocationIndex {
        var locations = LocationIndex()
        locations.record(["steps"], key: at(8, 5), value: at(9, 7))
        locations.record(["steps", "thumb"], key: at(9, 7), value: at(10, 9))
        locations.record(["steps", "thumb", "width"], key: at(12, 9), value: at(12, 16))
        return locations
    }

    func testValueFindingPointsAtTheValue() {
        let finding = PolicyFinding(id: "policy.option-value", message: "too wide", hint: "narrower", path: ["steps", "thumb", "width"])
        XCTAssertEqual(finding.diagnostic(locations: index), Diagnostic(
            id: "policy.option-value", severity: .error, message: "too wide", location: at(12, 16), hint: "narrower"))
    }

    func testKeyFindingPointsAtTheKey() {
        let finding = PolicyFinding(id: "policy.option-not-allowed", message: "no width", path: ["steps", "thumb", "width"], concernsKey: true)
        XCTAssertEqual(finding.diagnostic(locations: index).location, at(12, 9))
    }

    func testUnrecordedPathFallsBackToTheNearestAncestor() {
        let value = PolicyFinding(id: "policy.option-value", message: "m", path: ["steps", "thumb", "height"])
        XCTAssertEqual(value.diagnostic(locations: index).location, at(10, 9))
        let key = PolicyFinding(id: "policy.option-not-allowed", message: "m", path: ["steps", "thumb", "height"], concernsKey: true)
        XCTAssertEqual(key.diagnostic(locations: index).location, at(9, 7))
    }

    func testNoLocation() {
        let elsewhere = PolicyFinding(id: "policy.field-not-allowed", message: "m", path: ["fields", "kind"], concernsKey: true)
        XCTAssertNil(elsewhere.diagnostic(locations: index).location)
        let unlocated = PolicyFinding(id: "policy.too-many-files", message: "m", hint: "h", path: [])
        XCTAssertEqual(unlocated.diagnostic(locations: nil), Diagnostic(id: "policy.too-many-files", message: "m", hint: "h"))
    }
}
