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

    /// Every type sniffing can name fits the byte the digest cache keeps: a type added to the sniffer
    /// and not to `knownTypes` would be remembered as unknown.
    func testEveryTypeSniffingNamesFitsTheByte() {
        func head(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } + [UInt8](repeating: 0, count: 64) }
        let text = { (word: String) in Array(word.utf8) }
        let heads = [
            head([0xFF, 0xD8, 0xFF]), head([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), head(text("GIF89a")), head([0x49, 0x49, 0x2A, 0x00]),
            head(text("RIFF"), [0, 0, 0, 0], text("WEBP")), head([0, 0, 0, 0], text("ftypavif")), head([0, 0, 0, 0], text("ftypheic")),
            head(text("%PDF-1.7")), head([0, 0, 0, 0], text("ftypqt")), head([0, 0, 0, 0], text("ftypM4A")), head([0, 0, 0, 0], text("ftypisom")),
            head([0x1A, 0x45, 0xDF, 0xA3], text("webm")), head([0x1A, 0x45, 0xDF, 0xA3]), head(text("OggS")), head(text("fLaC")),
            head(text("RIFF"), [0, 0, 0, 0], text("WAVE")), head(text("RIFF"), [0, 0, 0, 0], text("AVI ")), head(text("ID3")),
            head([0x50, 0x4B, 0x03, 0x04]), head([0x1F, 0x8B]),
        ]
        var named: Set<String> = []
        for bytes in heads {
            guard let type = ContentSniffing.mediaType(head: bytes) else { return XCTFail("no type for \(bytes.prefix(12))") }
            XCTAssertEqual(ContentInspection(mediaType: type, problem: nil).mediaType, type)
            named.insert(type)
        }
        XCTAssertEqual(named, Set(ContentInspection.knownTypes), "each known type is one sniffing names")
    }
}
