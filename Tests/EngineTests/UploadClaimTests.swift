@testable import Engine
import Foundation
import Synchronization
import TestSupport
import XCTest

/// One request writes an upload at a time: a refused claim takes nothing from the holder, and a
/// request that wants the upload back gets it as soon as the holder lets go.
final class UploadClaimTests: XCTestCase {
    func testARefusedClaimLeavesTheHoldersClaimAlone() throws {
        let folder = try TemporaryDirectory(prefix: "upload-claims")
        defer { folder.remove() }
        let store = try UploadStore(directory: folder.path)
        let id = String(repeating: "c", count: 32)
        var holder = store.claim(id)
        XCTAssertNotNil(holder)
        XCTAssertNil(store.claim(id), "held: refused")
        XCTAssertNil(store.claim(id), "still held after a refusal: the refused claim gave back nothing of the holder's")
        holder = nil
        XCTAssertNil(holder)
        XCTAssertNotNil(store.claim(id), "free once the holder is gone")
    }

    func testReleaseReturnsAsSoonAsTheHolderLetsGo() throws {
        let folder = try TemporaryDirectory(prefix: "upload-claims")
        defer { folder.remove() }
        let store = try UploadStore(directory: folder.path)
        let id = String(repeating: "d", count: 32)
        let holder = Mutex<UploadClaim?>(store.claim(id))
        // The holding request ends a moment later, on its own thread, and its claim goes with it.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { holder.withLock { $0 = nil } }
        let start = ContinuousClock.now
        XCTAssertTrue(store.release(id, patience: .seconds(30)))
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(20), "woken by the holder letting go, not by the patience running out")
        XCTAssertNotNil(store.claim(id))
    }
}
