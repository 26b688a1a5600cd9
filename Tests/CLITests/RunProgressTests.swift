@testable import CLI
import Client
import Foundation
import Synchronization
import TestSupport
import XCTest

/// The progress line by an injected clock (no sleeps): paces over the last seconds rather than
/// since the start, an ETA that counts down between Assemblies, and every phase named.
final class RunProgressTests: XCTestCase {
    private let zero = ContinuousClock.now

    private func at(_ seconds: Double) -> ContinuousClock.Instant { zero + .seconds(seconds) }

    func testTheRateIsTheRecentPaceAndStopsWithTheUploads() {
        var window = RateWindow(start: zero, steps: 0)
        var bytes = 0.0
        // 15 MB/s for 4 s, then 1 MB/s for 10 s, then nothing.
        for tenth in 1...40 {
            bytes += 1_500_000
            window.record(bytes, at: at(Double(tenth) / 10))
        }
        XCTAssertEqual(window.rate(at: at(4)), 15_000_000, accuracy: 1)
        for tenth in 41...140 {
            bytes += 100_000
            window.record(bytes, at: at(Double(tenth) / 10))
        }
        // The average since the start would be 5 MB/s, and fall from there.
        XCTAssertEqual(window.rate(at: at(14)), 1_000_000, accuracy: 1)
        XCTAssertEqual(window.rate(at: at(20)), 0, "nothing moved for the last 5 s")
    }

    func testTheETACountsDownBetweenAssembliesAndOnlyClimbsWhenOverdue() {
        var window = RateWindow(start: zero)
        var etas: [Double] = []
        // 20 Assemblies, one ending every 0.5 s; the line is drawn every 0.1 s.
        for tick in 1...95 {
            let now = at(Double(tick) / 10)
            if tick % 5 == 0 { window.record(Double(tick / 5), at: now) }
            if let eta = window.eta(total: 20, at: now) { etas.append(eta.inSeconds) }
        }
        XCTAssertEqual(etas.count, 91, "an ETA from the first Assembly on")
        XCTAssertEqual(etas.first ?? 0, 9.5, accuracy: 0.001)
        for (earlier, later) in zip(etas, etas.dropFirst()) {
            XCTAssertEqual(later, earlier - 0.1, accuracy: 0.001, "it falls with the clock: \(etas)")
        }
        // Nothing ends after 9.5 s: the ETA runs out at 10 s, then grows from the slower pace.
        XCTAssertEqual(window.eta(total: 20, at: at(9.9))?.inSeconds ?? -1, 0.1, accuracy: 0.001)
        let late = window.eta(total: 20, at: at(12))?.inSeconds ?? 0
        let later = window.eta(total: 20, at: at(13))?.inSeconds ?? 0
        XCTAssertGreaterThan(late, 0.5)
        XCTAssertGreaterThan(later, late, "overdue: the estimate is made again from the pace so far")
    }

    func testTheLineNamesEachPhaseAndGivesNoRateOnceTheBytesAreIn() {
        var progress = RunProgress(start: zero, handsOver: false)
        progress.started(assemblies: 4, cached: 0)
        progress.created()
        progress.uploaded(2_000_000, of: 4_000_000, at: at(1))
        XCTAssertEqual(progress.line(at: at(1)), "uploading: 0 of 4 Assemblies done (0.0/s), 1 in flight; 2 MB of 4 MB uploaded (2 MB/s, 1s left)")
        progress.uploaded(4_000_000, of: 4_000_000, at: at(2))
        progress.finished(at: at(2))
        XCTAssertEqual(progress.line(at: at(30)), "processing: 1 of 4 Assemblies done (0.0/s), ETA 1m30s; 4 MB uploaded")
        XCTAssertTrue(progress.entered(.writingResults))
        XCTAssertEqual(progress.line(at: at(31)), "writing results (1 of 4 Assemblies done)")
        XCTAssertTrue(progress.entered(.downloading(done: 0, total: 12)))
        XCTAssertFalse(progress.entered(.downloading(done: 5, total: 12)), "more of the same phase")
        XCTAssertEqual(progress.line(at: at(32)), "downloading: 5 of 12 result files (1 of 4 Assemblies done)")
        XCTAssertTrue(progress.entered(.cleaningUp))
        XCTAssertEqual(progress.line(at: at(33)), "cleaning up (1 of 4 Assemblies done)")

        var local = RunProgress(start: zero, handsOver: true)
        local.started(assemblies: 2, cached: 0)
        local.uploaded(1_000, of: 3_000, at: at(1))
        XCTAssertEqual(local.line(at: at(1)), "processing: 0 of 2 Assemblies done (0.0/s); 1 KB of 3 KB handed over")
    }

    func testARunOnTheEmbeddedEngineSaysHandedOverAndNamesWhatFollowsTheAssemblies() async throws {
        let directory = try TemporaryDirectory(prefix: "run-phases")
        defer { directory.remove() }
        for index in 0..<3 { try directory.write("files/f\(index).txt", "file \(index)") }
        try directory.write("pipeline.yml", """
            version: 1
            endpoint: local
            assemblies:
              each:
                inputs: [files/*.txt]
                batch: 1
                steps: {h: {robot: /file/hash, use: ':original', result: true}}
                download: out
            """)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("processing: ") && $0.hasSuffix(" handed over") }, run.stderr)
        XCTAssertFalse(run.stderr.contains("uploaded"), "nothing was uploaded: \(run.stderr)")
        // After the last Assembly, each phase has its line (in a log, at once).
        for phase in ["writing results (3 of 3 Assemblies done)", "downloading: 0 of 3 result files", "cleaning up (3 of 3 Assemblies done)"] {
            XCTAssertTrue(lines.contains { $0.hasPrefix(phase) }, "\(phase): \(run.stderr)")
        }
        XCTAssertTrue(run.stdout.contains(" handed over)"), run.stdout)
    }
}
