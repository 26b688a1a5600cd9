@testable import Client
import Foundation
import TestSupport
import XCTest

/// Creations paced by a token bucket, and a rate limit that holds every request of the run.
final class CreationPacerTests: XCTestCase {
    private func seconds(_ durations: [Duration]) -> [Double] {
        durations.map { ((Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) * 1000).rounded() / 1000 }
    }

    func testABurstThenOneCreationPerInterval() async throws {
        let clock = ImpatientClock()
        let pacer = CreationPacer(perMinute: 60, burst: 3, clock: clock)
        for _ in 0..<6 { try await pacer.admit() }
        XCTAssertEqual(seconds(clock.sleeps), [1, 1, 1], "three at once, then one a second")
    }

    func testARateLimitHoldsEveryRequest() async throws {
        let clock = ImpatientClock()
        let pacer = CreationPacer(perMinute: nil, clock: clock)
        try await pacer.admit()
        XCTAssertEqual(clock.sleeps, [], "no bucket: no wait")
        await pacer.pause(for: .seconds(7))
        await pacer.pause(for: .seconds(2))
        try await pacer.waitOutPause()
        XCTAssertEqual(seconds(clock.sleeps), [7], "the longer pause stays")
        try await pacer.admit()
        XCTAssertEqual(seconds(clock.sleeps), [7])
    }

    func testManyRunsOfAnAssemblyShareOneBudget() async throws {
        let clock = ImpatientClock()
        let pacer = CreationPacer(perMinute: 120, burst: 1, clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await pacer.admit() } }
            try await group.waitForAll()
        }
        let waited = clock.sleeps.reduce(Duration.zero, +)
        XCTAssertGreaterThanOrEqual(waited, .seconds(2), "five creations at 120 a minute take two seconds after the first: \(clock.sleeps)")
    }
}
