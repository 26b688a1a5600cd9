import Foundation
import XCTest

/// Compares output with a golden file. Set `UPDATE_GOLDEN=1` to rewrite the files after a
/// deliberate change, then review the diff before committing.
public enum Golden {
    /// Fails the test when `actual` differs from the content of `file`.
    public static func assertMatches(_ actual: String, file: String, line: UInt = #line) throws {
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try actual.write(toFile: file, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOfFile: file, encoding: .utf8) else {
            XCTFail("golden file \(file) is missing; run with UPDATE_GOLDEN=1 to create it", line: line)
            return
        }
        XCTAssertEqual(actual, expected, "output differs from \(file)", line: line)
    }
}

/// Fixture files kept in the source tree beside the tests.
public enum Fixtures {
    /// The absolute path of a fixture of the calling test target.
    public static func path(_ name: String, target: String = "SpecTests/Manifest") -> String {
        PackageRoot.path + "/Tests/\(target)/Fixtures/\(name)"
    }
}
