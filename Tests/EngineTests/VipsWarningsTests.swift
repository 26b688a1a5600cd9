@testable import Engine
import Foundation
import Synchronization
import TestSupport
import XCTest

/// libvips' warnings go to the file whose work gave them, also when several files are decoded at
/// once and the warning names none.
final class VipsWarningsTests: XCTestCase {
    func testEveryOpenScopeHearsAWarningAndOnlyTheDecodeAloneKeepsWords() {
        var listeners = VipsWarnings.Listeners()
        let first = listeners.open()
        listeners.hear("before the second opened")
        let second = listeners.open()
        listeners.startKeeping()
        listeners.hear("words")
        XCTAssertEqual(listeners.stopKeeping(), ["words"])
        listeners.hear("not kept")
        XCTAssertEqual(listeners.stopKeeping(), [], "words are kept only while the decode alone runs")
        XCTAssertTrue(listeners.close(first))
        XCTAssertTrue(listeners.close(second))
        let third = listeners.open()
        XCTAssertFalse(listeners.close(third), "a scope that heard nothing")
        XCTAssertFalse(listeners.close(third), "a closed scope is no scope")
    }

    func testMessagesAreTidiedOnceEachWithoutTheCountAndWithTheUploadsName() {
        let path = "/data/.pipeline/engine/incoming/u1"
        let tidied = VipsWarnings.tidy(
            ["read gave 2 warnings", "VipsJpeg: Corrupt JPEG data\nVipsJpeg: Corrupt JPEG data", "\(path): bad\nsecond line", "  "],
            path: path, name: "a.jpg")
        XCTAssertEqual(tidied, ["VipsJpeg: Corrupt JPEG data", "a.jpg: bad", "second line"])
        XCTAssertEqual(VipsWarnings.tidy((0..<30).map { "w\($0)" }, path: path, name: "a.jpg").count, VipsWarnings.limit)
    }

    func testFilesDecodedAtOnceEachGetExactlyTheirOwnWarnings() throws {
        guard VipsLibrary.ready else { throw XCTSkip("libvips is not installed") }
        let directory = try TemporaryDirectory(prefix: "vips-warnings")
        defer { directory.remove() }
        let damaged = try MediaCorpus.writeDamaged(in: directory.path, names: (0..<4).map { "bad\($0).jpg" })
        let good = (0..<4).map { directory.path + "/good\($0).jpg" }
        for path in good { try MediaCorpus.image(path, width: 256, height: 256) }
        let paths = damaged.map { directory.path + "/" + $0 } + good
        let heard = Mutex<[String: [String]]>([:])
        DispatchQueue.concurrentPerform(iterations: paths.count * 3) { index in
            let path = paths[index % paths.count]
            let outcome = try? VipsWarnings.watching(path, name: (path as NSString).lastPathComponent) { () throws(RobotError) in
                _ = VipsWarnings.decodeAll(path)
            }
            heard.withLock { $0[path, default: []] += outcome?.warnings ?? ["(failed)"] }
        }
        for (path, warnings) in heard.withLock({ $0 }) {
            if path.contains("/bad") {
                XCTAssertEqual(warnings, Array(repeating: "VipsJpeg: Corrupt JPEG data: premature end of data segment", count: 3),
                               "each of three decodes of \(path) warned of its own damage once")
            } else {
                XCTAssertEqual(warnings, [], "a good file has no warning: \(path)")
            }
        }
    }
}
