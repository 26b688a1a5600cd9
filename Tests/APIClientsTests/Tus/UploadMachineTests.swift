@testable import APIClients
import Foundation
import XCTest

/// The tus upload's transitions, fed without sockets: each path the uploader takes is one
/// sequence of server answers.
final class UploadMachineTests: XCTestCase {
    private let delays: [Duration] = [.zero, .seconds(1), .seconds(3)]
    private let url = "http://127.0.0.1:1/files/a"

    private func error(_ kind: TusError.Kind, location: String? = nil) -> TusError {
        var error = TusError(kind, request: "PATCH \(url)", detail: "test")
        error.location = location
        return error
    }

    func testANewUploadIsCreatedThenSentChunkByChunk() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        XCTAssertEqual(machine.start, .create)
        XCTAssertEqual(machine.handle(.created(url: url, offset: 0)).action, .send(url: url, offset: 0))
        XCTAssertEqual(machine.handle(.sent(offset: 4)).action, .send(url: url, offset: 4))
        XCTAssertEqual(machine.handle(.sent(offset: 10)).action, .finish(url: url))
        XCTAssertEqual(machine.resumedFrom, 0)
    }

    func testAFileThatWentWholeInTheCreatingRequestIsDone() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        let (action, record) = machine.handle(.created(url: url, offset: 10))
        XCTAssertEqual(action, .finish(url: url))
        XCTAssertEqual(record, .save(url: url))
    }

    func testARateLimitWaitsWhatTheServerSaysElseAtLeastASecondThenAsksTheOffset() {
        XCTAssertEqual(TusError.kind(status: 429, method: "PATCH"), .rateLimited)
        XCTAssertEqual(TusError.kind(status: 429, method: "POST"), .rateLimited)
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        _ = machine.handle(.created(url: url, offset: 0))
        // The first retry delay is zero, but a load balancer's 429 without Retry-After waits a second.
        XCTAssertEqual(machine.handle(.failed(error(.rateLimited))).action, .wait(.seconds(1)))
        XCTAssertEqual(machine.handle(.waited).action, .askOffset(url: url))
        var told = error(.rateLimited)
        told.retryAfter = 2.5
        XCTAssertEqual(machine.handle(.failed(told)).action, .wait(.milliseconds(2500)))
    }

    func testAStoredUploadIsAskedForItsOffsetAndResumed() {
        var machine = UploadMachine(size: 10, resuming: url, retry: UploadOptions.retryPolicy(delays: delays))
        XCTAssertEqual(machine.start, .askOffset(url: url))
        XCTAssertEqual(machine.handle(.offsetKnown(6)).action, .send(url: url, offset: 6))
        XCTAssertEqual(machine.resumedFrom, 6)
    }

    func testATransportFailureWaitsThenAsksTheOffsetAndTheAttemptsStartAgainAfterProgress() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        _ = machine.handle(.created(url: url, offset: 0))
        XCTAssertEqual(machine.handle(.failed(error(.transport))).action, .wait(.zero))
        XCTAssertEqual(machine.handle(.waited).action, .askOffset(url: url))
        XCTAssertEqual(machine.handle(.offsetKnown(0)).action, .send(url: url, offset: 0))
        XCTAssertEqual(machine.handle(.failed(error(.transport))).action, .wait(.seconds(1)), "no progress: the next delay")
        _ = machine.handle(.waited)
        XCTAssertEqual(machine.handle(.offsetKnown(5)).action, .send(url: url, offset: 5))
        XCTAssertEqual(machine.handle(.failed(error(.serverError))).action, .wait(.zero), "progress since: the first delay again")
    }

    func testRetriesEndWhenTheDelaysRunOut() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        _ = machine.handle(.created(url: url, offset: 0))
        for delay in delays {
            XCTAssertEqual(machine.handle(.failed(error(.locked))).action, .wait(delay))
            _ = machine.handle(.waited)
            _ = machine.handle(.offsetKnown(0))
        }
        XCTAssertEqual(machine.handle(.failed(error(.locked))).action, .fail(error(.locked)))
    }

    func testAChecksumMismatchSendsTheSameBytesAgainWithoutAskingAndStopsTrustingThePlansDigest() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        _ = machine.handle(.created(url: url, offset: 0))
        XCTAssertTrue(machine.trustsKnownDigest)
        XCTAssertEqual(machine.handle(.failed(error(.checksumMismatch))).action, .wait(.zero))
        XCTAssertEqual(machine.handle(.waited).action, .send(url: url, offset: 0), "nothing was written: no HEAD")
        XCTAssertFalse(machine.trustsKnownDigest)
    }

    func testAForgottenStoredUploadIsCreatedAgainAtOnceButOneThisCallMadeCountsAsAnAttempt() {
        var resumed = UploadMachine(size: 10, resuming: url, retry: UploadOptions.retryPolicy(delays: delays))
        let (action, record) = resumed.handle(.failed(error(.gone)))
        XCTAssertEqual(action, .create, "a stored URL the server forgot: a new upload, no wait")
        XCTAssertEqual(record, .forget)
        var fresh = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        _ = fresh.handle(.created(url: url, offset: 0))
        XCTAssertEqual(fresh.handle(.failed(error(.gone))).action, .wait(.zero), "a server that loses what it just made is not asked again at once")
        XCTAssertEqual(fresh.handle(.waited).action, .create)
    }

    func testACreationRefusedWithALocationGoesOnWithThatUpload() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        let other = "http://127.0.0.1:1/files/b"
        let (action, record) = machine.handle(.failed(error(.serverError, location: other)))
        XCTAssertEqual(record, .save(url: other))
        XCTAssertEqual(action, .wait(.zero))
        XCTAssertEqual(machine.handle(.waited).action, .askOffset(url: other), "the upload it made is used, not a new one")
    }

    func testAProxysRefusalSendsAgainAtOnceAndARejectionFails() {
        var machine = UploadMachine(size: 10, resuming: nil, retry: UploadOptions.retryPolicy(delays: delays))
        _ = machine.handle(.created(url: url, offset: 0))
        XCTAssertEqual(machine.handle(.sendRefused).action, .send(url: url, offset: 0))
        XCTAssertEqual(machine.handle(.failed(error(.rejected))).action, .fail(error(.rejected)))
    }
}
