import Crypto
import Foundation
import TestSupport
import XCTest

/// Incremental equals clean: seeded random sequences of what a team does over weeks (add, byte
/// copy, rename, move, delete, new bytes, NFC and NFD twins, a step changed, `ignore_errors`,
/// `download:` moved, a run against a dead endpoint, a run canceled) on real images and the
/// embedded engine. After each, a run must leave the results and downloads a clean run of the
/// same files and manifest leaves in a fresh folder, and a failed or canceled run must leave the
/// last good outcome as it was. A failure names its seed and the shortest sequence found.
/// `PIPELINE_MODEL_SEEDS`, `PIPELINE_MODEL_STEPS` and `PIPELINE_MODEL_SEED` (the first seed)
/// choose the budget (`make soak SEEDS=N`); the seeds are split between this class and
/// `IncrementalModelSecondHalfTests`, so that the suite's parallel runner checks both at once.
final class IncrementalModelTests: XCTestCase {
    func testIncrementalRunsLeaveWhatCleanRunsLeave() async throws {
        try await IncrementalModelBudget.check(half: 0)
    }
}

/// The second half of the model's seeds (see `IncrementalModelTests`).
final class IncrementalModelSecondHalfTests: XCTestCase {
    func testIncrementalRunsLeaveWhatCleanRunsLeave() async throws {
        try await IncrementalModelBudget.check(half: 1)
    }
}

/// The seeds and steps the environment asks for, and the check of one half of them.
enum IncrementalModelBudget {
    static func check(half: Int) async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = UInt64(environment["PIPELINE_MODEL_SEEDS"] ?? "") ?? 8
        let steps = Int(environment["PIPELINE_MODEL_STEPS"] ?? "") ?? 20
        let first = UInt64(environment["PIPELINE_MODEL_SEED"] ?? "") ?? 1
        let firstHalf = (count + 1) / 2
        let seeds = half == 0 ? first..<first + firstHalf : first + firstHalf..<first + count
        let checker = ModelChecker()
        var operations = 0
        for seed in seeds {
            var generator = SeededGenerator(seed: seed)
            let outcome = try await checker.run(steps: steps) { files in ModelChoice.next(files: files, using: &generator) }
            operations += outcome.performed.count
            guard let failure = outcome.failure else { continue }
            let shortest = try await checker.shortest(outcome.performed, failing: failure)
            XCTFail("""
                seed \(seed): \(failure.message)
                shortest sequence (\(shortest.count) of \(outcome.performed.count) actions):
                \(shortest.map { "  " + $0.description }.joined(separator: "\n"))
                """)
            return
        }
        print("incremental model: seeds \(seeds.lowerBound)..<\(seeds.upperBound), \(operations) actions, each checked against a clean run")
    }
}
