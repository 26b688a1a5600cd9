@testable import Basics
import Foundation
import TestSupport
import XCTest

/// What plan learns of a file while hashing it: its sniffed type, and whether it is empty or cut
/// short, for real files made with ffmpeg, fed in pieces of every size.
final class ContentInspectionTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "inspection") }
    override func tearDown() { directory.remove() }

    private func inspect(_ data: Data, piece: Int) -> ContentInspection {
        var inspector = ContentInspector()
        var offset = 0
        while offset < data.count {
            let end = min(offset + piece, data.count)
            data[offset..<end].withUnsafeBytes { inspector.feed($0) }
            offset = end
        }
        return inspector.finish()
    }

    func testWholeFilesAreWholeAndCutFilesAreCutInAnyPieceSize() throws {
        let types = ["jpg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp"]
        for (ext, type) in types {
            let path = directory.path + "/x." + ext
            try MediaCorpus.image(path, width: 64, height: 48, frames: ext == "gif" ? 3 : 1)
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            for piece in [1, 7, 512, 4096, 1 << 20] {
                XCTAssertEqual(inspect(whole, piece: piece), ContentInspection(mediaType: type, problem: nil), "\(ext) in pieces of \(piece)")
                for cut in [whole.count / 2, whole.count - 1] {
                    XCTAssertEqual(inspect(whole.prefix(cut), piece: piece).problem, .truncated, "\(ext) cut to \(cut) of \(whole.count), pieces of \(piece)")
                }
            }
        }
    }

    func testAJPEGWithDataAfterItsEndIsWholeAsAMotionPhotoIs() throws {
        try MediaCorpus.image(directory.path + "/x.jpg", width: 64, height: 48)
        var photo = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/x.jpg"))
        photo.append(Data(repeating: 0x42, count: 5000))
        XCTAssertNil(inspect(photo, piece: 1000).problem)
    }

    func testEmptyUnknownAndTheByteRoundTrip() {
        XCTAssertEqual(inspect(Data(), piece: 1), ContentInspection(mediaType: nil, problem: .empty))
        XCTAssertEqual(inspect(Data("just text".utf8), piece: 3), ContentInspection(mediaType: nil, problem: nil))
        for type in ContentInspection.knownTypes + [nil] {
            for problem in [nil, ContentInspection.Problem.empty, .truncated] {
                let inspection = ContentInspection(mediaType: type, problem: problem)
                XCTAssertEqual(ContentInspection(byte: inspection.byte), inspection)
            }
        }
    }
}
