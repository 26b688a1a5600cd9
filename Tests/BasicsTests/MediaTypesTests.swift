import Basics
import XCTest

final class MediaTypesTests: XCTestCase {
    func testTheExtensionOfTheLastPartNamesTheType() {
        XCTAssertEqual(MediaTypes.guess("photos/a.png"), "image/png")
        XCTAssertEqual(MediaTypes.guess("photos/A.JPeG"), "image/jpeg")
        XCTAssertEqual(MediaTypes.guess("archive.tar.gz"), "application/gzip")
        XCTAssertEqual(MediaTypes.guess("clip.mp4"), "video/mp4")
        XCTAssertEqual(MediaTypes.guess("ünïcödé/ß.flac"), "audio/flac")
    }

    func testNamesWithoutAKnownExtensionAreOctetStreams() {
        for path in ["", "README", ".png", "dir/.png", "dir.png/file", "file.", "a.pngx", "a.verylongextension", "x.pñg"] {
            XCTAssertEqual(MediaTypes.guess(path), "application/octet-stream", path)
        }
    }

    func testUploadMetadataNamesTheLastPartAndItsType() {
        XCTAssertEqual(MediaTypes.uploadMetadata(for: "a/b\nc.png"), ["filename": "b_c.png", "filetype": "image/png"])
    }
}
