import Basics
import Foundation
import XCTest

final class PortableURLTests: XCTestCase {
    func testAFileInsideTheProjectIsKeptRelativeAndReadBackWhereverTheProjectIs() throws {
        let name = "p 0 #1 %20 é:x?.png"
        let url = URL(fileURLWithPath: "/work/site/.pipeline/engine/results/abc/" + name).absoluteString
        let kept = PortableURL.kept(url, in: "/work/site/out", project: "/work/site")
        XCTAssertTrue(kept.hasPrefix("../.pipeline/engine/results/abc/"), kept)
        XCTAssertFalse(kept.contains("#") || kept.contains("?") || kept.contains(" ") || kept.contains(":"), kept)
        // Read back in the folder it was written in, and in a copy of the project elsewhere.
        XCTAssertEqual(URL(string: PortableURL.resolved(kept, in: "/work/site/out"))?.path, "/work/site/.pipeline/engine/results/abc/" + name)
        XCTAssertEqual(URL(string: PortableURL.resolved(kept, in: "/runner/two/out"))?.path, "/runner/two/.pipeline/engine/results/abc/" + name)
    }

    func testOtherURLsAreKeptAsTheyAre() {
        let outside = URL(fileURLWithPath: "/elsewhere/file.png").absoluteString
        XCTAssertEqual(PortableURL.kept(outside, in: "/work/site", project: "/work/site"), outside)
        XCTAssertEqual(PortableURL.kept("https://cdn.example.com/a.png", in: "/work/site", project: "/work/site"), "https://cdn.example.com/a.png")
        XCTAssertEqual(PortableURL.resolved("https://cdn.example.com/a.png", in: "/work/site"), "https://cdn.example.com/a.png")
        XCTAssertEqual(PortableURL.resolved(outside, in: "/work/site"), outside)
        XCTAssertEqual(PortableURL.resolved("", in: "/work/site"), "")
    }

    func testARelativeReferenceThatClimbsOutIsResolvedAsWrittenForTheReaderToRefuse() {
        // The results file is input: a climbing reference names a file outside, which the downloader refuses.
        XCTAssertEqual(URL(string: PortableURL.resolved("../../../etc/passwd", in: "/work/site/out"))?.path, "/etc/passwd")
    }
}
