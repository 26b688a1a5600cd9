import Foundation
import FuzzTargets
import XCTest

/// Every input the fuzzers kept (Fuzz/Corpus/<target>/) runs through its target on every test
/// run: no crash, and the target's property holds. Fuzz findings become regression tests by
/// being committed to the corpus.
final class CorpusReplayTests: XCTestCase {
    private static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus").path

    func testEveryTargetHasSeeds() {
        for target in FuzzTarget.allCases {
            XCTAssertFalse(inputs(target).isEmpty, "Fuzz/Corpus/\(target.rawValue) has no inputs")
        }
    }

    func testTheCorpusReplaysCleanly() throws {
        for target in FuzzTarget.allCases {
            for path in inputs(target) {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertTrue(target.run(data), "\(target.rawValue): \(path)")
            }
        }
    }

    func testPropertiesCanFail() {
        // The JSON property compares a round trip; these inputs exercise both outcomes of the parse.
        XCTAssertTrue(FuzzTarget.json.run(Data("not json".utf8)))
        XCTAssertTrue(FuzzTarget.json.run(Data(#"{"a":[1,2.5,"\u0000"]}"#.utf8)))
        // A form with no admitting field is refused (403), one with it is accepted: both are documented answers.
        XCTAssertTrue(FuzzTarget.form.run(Data("--fuzz\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nno\r\n--fuzz--\r\n".utf8)))
    }

    private func inputs(_ target: FuzzTarget) -> [String] {
        let folder = Self.corpus + "/" + target.rawValue
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
    }
}
