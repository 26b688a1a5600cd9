@testable import CLI
import Foundation
import TestSupport
import XCTest

/// Every command speaks through its view: only `Sources/CLI/Views/` writes to standard output
/// or standard error, so a command's human, JSON and GitHub forms stay in one place each.
final class OutputThroughViewsTests: XCTestCase {
    func testOnlyViewsWrite() throws {
        let folder = PackageRoot.path + "/Sources/CLI"
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 20)
        var writers: [String] = []
        var viewWrites = 0
        for file in files where file != "Output.swift" {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            let writes = text.matches(of: /output\.(?:out|error|failure)\(|(?:^|[^\w.])print\(/.anchorsMatchLineEndings()).count
            if file.hasPrefix("Views/") { viewWrites += writes } else if writes > 0 { writers.append(file) }
        }
        XCTAssertGreaterThan(viewWrites, 150, "the views write everything the commands say")
        XCTAssertEqual(writers.sorted(), [], "write outside Views/; say it through the command's view")
    }
}
