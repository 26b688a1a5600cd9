@testable import APIClients
import XCTest

/// What a stored upload URL (state, which may come from a cache or a commit) may be resumed at.
final class FileUploaderTests: XCTestCase {
    func testAStoredUploadURLIsResumedOnlyBelowTheEndpoint() {
        let endpoint = "https://tus.example/resumable/files/"
        XCTAssertTrue(FileUploader.isBelow("https://tus.example/resumable/files/abc", endpoint: endpoint))
        XCTAssertTrue(FileUploader.isBelow("https://tus.example:443/resumable/files/abc?x=1", endpoint: endpoint))
        XCTAssertFalse(FileUploader.isBelow("https://elsewhere.example/resumable/files/abc", endpoint: endpoint), "another origin")
        XCTAssertFalse(FileUploader.isBelow("http://tus.example/resumable/files/abc", endpoint: endpoint), "another scheme")
        XCTAssertFalse(FileUploader.isBelow("https://tus.example/other/abc", endpoint: endpoint), "another path")
        XCTAssertFalse(FileUploader.isBelow("https://tus.example/resumable/files/../../other", endpoint: endpoint), "climbing")
        XCTAssertFalse(FileUploader.isBelow("https://tus.example/resumable/files/%2E%2e/x", endpoint: endpoint), "climbing, encoded")
        XCTAssertFalse(FileUploader.isBelow("https://tus.example/resumable/files/", endpoint: endpoint), "the endpoint itself")
        XCTAssertTrue(FileUploader.isBelow("http://127.0.0.1:8080/files/abc", endpoint: "http://127.0.0.1:8080/files"))
    }
}
