import Basics
import Foundation
import TestSupport
import Wire
import XCTest

/// The embedded engine's data folder as the runner reads it.
final class EngineDataLayoutTests: XCTestCase {
    private let id = String(repeating: "ab", count: 16)

    func testAResultIsPlacedByItsAssemblyAndFolder() {
        let layout = EngineDataLayout("/data/engine")
        XCTAssertTrue(layout.resultPlace(of: "/data/engine/results/\(id)/thumb/0/a.jpg")! == (id, "thumb/0"))
        XCTAssertTrue(layout.resultPlace(of: "/data/engine/results/\(id)/a.jpg")! == (id, ""), "right in the Assembly's folder")
        XCTAssertTrue(layout.resultPlace(of: "/data/engine/./results/\(id)/x/../y/b.png")! == (id, "y"), "normalized first")
        XCTAssertNil(layout.resultPlace(of: "/data/engine/uploads/\(id)"))
        XCTAssertNil(layout.resultPlace(of: "/data/engine/results/../assemblies/\(id).json"))
        XCTAssertEqual(layout.record(of: id), "/data/engine/assemblies/\(id).json")
    }

    func testAStoredStateIsReadPastItsUploads() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let layout = EngineDataLayout(folder.path)
        let uploads = (0..<3).map { #"{"id": "u\#($0)", "name": "f"}"# }.joined(separator: ",")
        try folder.write("assemblies/\(id).json", #"{"id": "\#(id)", "uploads": [\#(uploads)], "error": "IMAGE_RESIZE_ERROR", "message": "m"}"#)
        XCTAssertEqual(layout.storedState(of: id), StoredAssemblyState(ok: nil, error: .imageResizeError))
        XCTAssertEqual(layout.storedState(of: id)?.word, "IMAGE_RESIZE_ERROR")

        try folder.write("assemblies/\(id).json", #"{"ok": "ASSEMBLY_EXECUTING", "error": 3}"#)
        XCTAssertEqual(layout.storedState(of: id)?.word, "ASSEMBLY_EXECUTING", "an error that is no string is none")
        try folder.write("assemblies/\(id).json", #"{"ok": "executing\u001b[2J"}"#)
        XCTAssertNil(layout.storedState(of: id)?.word, "words that are no code are not shown")
        try folder.write("assemblies/\(id).json", #"{"ok": "ASSEMBLY_EXECUTING", "ok": "ASSEMBLY_COMPLETED"}"#)
        XCTAssertNil(layout.storedState(of: id), "a damaged record says nothing")
        XCTAssertNil(layout.storedState(of: "../x"), "no id, no path")
        XCTAssertNil(layout.storedState(of: String(repeating: "cd", count: 16)), "no record")
    }
}
