@testable import Engine
import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// The run queue of engines sharing a database: each executing Assembly is claimed by one engine,
/// for a lease; once it runs out another engine claims it, and the first one's changes are refused.
final class SharedRunQueueTests: SharedStateTestCase {
    private func executing(_ store: SharedAssemblyStore, _ root: String, count: Int) throws -> [String] {
        try (1...count).map { number in
            let id = String(format: "%032x", number)
            XCTAssertTrue(try store.insert(record(id, file: root + "/assemblies/\(id)/uploads/f1", phase: true)))
            XCTAssertEqual(store.get(id)?.phase, .executing)
            return id
        }
    }

    func testEnginesClaimingAtOnceGetDifferentAssemblies() throws {
        let states = try engines(4)
        let root = try folder()
        let store = try SharedAssemblyStore(state: states[0], directory: root + "/assemblies", clock: SystemClock(), warn: { _ in })
        let ids = try executing(store, root, count: 40)
        let queues = states.map { SharedRunQueue(state: $0, lease: .seconds(60), warn: { _ in }) }
        let claimed = Mutex<[String]>([])
        ParallelWork.forEach(count: queues.count, workers: queues.count) { index in
            while let claim = try? queues[index].claim() { claimed.withLock { $0.append(claim.assembly) } }  // none left: the loop ends
        }
        XCTAssertEqual(claimed.withLock { $0 }.sorted(), ids, "every Assembly claimed exactly once")
    }

    func testAClaimWhoseLeaseRanOutIsTakenOverAndCanNoLongerChangeTheAssembly() throws {
        let states = try engines(2)
        let root = try folder()
        let store = try SharedAssemblyStore(state: states[0], directory: root + "/assemblies", clock: SystemClock(), warn: { _ in })
        let id = try executing(store, root, count: 1)[0]
        let (first, second) = (SharedRunQueue(state: states[0], lease: .milliseconds(500), warn: { _ in }),
                               SharedRunQueue(state: states[1], lease: .milliseconds(500), warn: { _ in }))
        let stale = try XCTUnwrap(try first.claim())
        XCTAssertNil(try second.claim(), "held for its lease")
        XCTAssertTrue(first.renew(stale))
        WakeSignal.pause(for: .milliseconds(700))  // the lease runs out unrenewed (a paused engine)
        let taken = try XCTUnwrap(try second.claim(), "claimed again once the lease ran out")
        XCTAssertEqual(taken.assembly, id)
        XCTAssertNotEqual(taken.token, stale.token)
        XCTAssertFalse(first.renew(stale), "the paused engine learns it lost the Assembly")
        XCTAssertNil(store.update(id, claim: stale) { record in _ = record.apply(.stepsFailed(code: .storeError, message: "stale")) },
                     "a paused engine whose lease passed cannot end the Assembly")
        XCTAssertEqual(store.get(id)?.phase, .executing)
        XCTAssertNotNil(store.update(id, claim: taken) { record in _ = record.apply(.stepsFinished(results: [:], ignored: [], warnings: [])) })
        XCTAssertEqual(store.get(id)?.phase, .completed)
        second.release(taken)
        XCTAssertNil(try first.claim(), "a completed Assembly is no longer in the queue")
    }

    func testALetGoAssemblyIsClaimedAtOnceAndAnAnnouncementWakesTheOthers() throws {
        let states = try engines(2)
        let root = try folder()
        let store = try SharedAssemblyStore(state: states[0], directory: root + "/assemblies", clock: SystemClock(), warn: { _ in })
        _ = try executing(store, root, count: 1)
        let (first, second) = (SharedRunQueue(state: states[0], lease: .seconds(60), warn: { _ in }),
                               SharedRunQueue(state: states[1], lease: .seconds(60), warn: { _ in }))
        let claim = try XCTUnwrap(try first.claim())
        first.release(claim)
        XCTAssertNotNil(try second.claim(), "let go (an engine stopping): claimable without waiting for the lease")
        let woke = Mutex<Duration?>(nil)
        let done = WakeSignal()
        let started = ContinuousClock.now
        DedicatedThread.start("waiter") {
            second.waitForWork(atMost: .seconds(5))
            woke.withLock { $0 = .now - started }
            done.signal()
        }
        WakeSignal.pause(for: .milliseconds(50))
        first.announce()
        XCTAssertTrue(done.wait(atMost: .seconds(6)))
        XCTAssertLessThan(try XCTUnwrap(woke.withLock { $0 }), .seconds(2), "woken by the announcement, not the timeout")
    }
}
