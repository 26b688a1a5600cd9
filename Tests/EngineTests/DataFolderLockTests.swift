import Engine
import EngineTestSupport
import Foundation
import HTTPServer
import Synchronization
import TestSupport
import XCTest

/// One engine per data folder: a second fails at once, or waits its turn when told to.
final class DataFolderLockTests: XCTestCase {
    func testASecondEngineOnTheSameFolderFailsOrWaits() async throws {
        let data = try TemporaryDirectory(prefix: "lock")
        defer { data.remove() }
        let settings = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        let first = try LocalEngine(.init(dataDirectory: data.path), server: settings)
        XCTAssertThrowsError(try LocalEngine(.init(dataDirectory: data.path), server: settings)) {
            XCTAssertTrue("\($0)".contains("another engine is using the data folder"), "\($0)")
        }

        let waited = Atomic<Bool>(false)
        var patient = LocalEngine.Configuration(dataDirectory: data.path)
        patient.whileWaitingForTheFolder = { waited.store(true, ordering: .relaxed) }
        let second = Task.detached { try LocalEngine(patient, server: settings) }
        let told = await eventually(within: .seconds(10)) { waited.load(ordering: .relaxed) }
        XCTAssertTrue(told, "told that it waits")
        first.stop()
        let engine = try await second.value
        engine.stop()
    }

    func testAWaitGivenUpLeavesTheFolderToTheNextEngine() async throws {
        let data = try TemporaryDirectory(prefix: "lock")
        defer { data.remove() }
        let settings = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        let first = try LocalEngine(.init(dataDirectory: data.path), server: settings)
        var quitter = LocalEngine.Configuration(dataDirectory: data.path)
        quitter.whileWaitingForTheFolder = {}
        quitter.stopWaiting = { true }
        XCTAssertThrowsError(try LocalEngine(quitter, server: settings)) { XCTAssertTrue($0 is WaitInterrupted, "\($0)") }
        // The lock the given-up wait takes once the first engine lets go is let go at once.
        first.stop()
        var next = LocalEngine.Configuration(dataDirectory: data.path)
        next.whileWaitingForTheFolder = {}
        let deadline = ContinuousClock.now + .seconds(20)
        next.stopWaiting = { ContinuousClock.now >= deadline }
        let patient = next
        let engine = try await Task.detached { try LocalEngine(patient, server: settings) }.value
        engine.stop()
    }
}
