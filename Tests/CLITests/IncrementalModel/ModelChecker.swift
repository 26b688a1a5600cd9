import Foundation
import Synchronization
import TestSupport
import XCTest

/// Runs sequences of actions on a project and checks each run against a clean run; clean
/// outcomes are kept by project content, as many sequences come back to the same state.
actor ModelChecker {
    /// Where a sequence first broke the invariant, and how.
    struct Failure: Error {
        var index: Int
        var message: String
    }

    /// The actions done (those that applied), and the failure, if one came.
    struct Outcome {
        var performed: [ModelAction]
        var failure: Failure?
    }

    private var cleanOutcomes: [String: String] = [:]

    /// Chooses and runs `steps` actions on a fresh project.
    func run(steps: Int, choose: (_ files: [String]) -> ModelAction) async throws -> Outcome {
        let directory = try TemporaryDirectory(prefix: "model")
        defer { directory.remove() }
        var project = ModelProject()
        var performed: [ModelAction] = []
        for _ in 0..<steps {
            let action = choose(project.files.map(\.path))
            guard try project.apply(action, in: directory.path) else { continue }
            performed.append(action)
            if let message = try await check(action, project: project, folder: directory.path) {
                return Outcome(performed: performed, failure: Failure(index: performed.count - 1, message: message))
            }
        }
        return Outcome(performed: performed, failure: nil)
    }

    /// Replays exactly `actions` on a fresh project: the failure, if one comes.
    func replay(_ actions: [ModelAction]) async throws -> Failure? {
        var remaining = actions[...]
        return try await run(steps: actions.count) { _ in remaining.popFirst() ?? .deadEndpoint }.failure
    }

    /// The shortest sequence found that still fails: actions dropped one at a time while the
    /// failure stays (at most 40 replays).
    func shortest(_ actions: [ModelAction], failing: Failure) async throws -> [ModelAction] {
        var kept = Array(actions.prefix(failing.index + 1))
        var replays = 0
        var index = 0
        while index < kept.count, replays < 40 {
            var candidate = kept
            candidate.remove(at: index)
            replays += 1
            if try await replay(candidate) != nil { kept = candidate } else { index += 1 }
        }
        return kept
    }

    /// Runs after `action` and compares: a run that must fail leaves the last good outcome; a
    /// plain run leaves the clean outcome.
    private func check(_ action: ModelAction, project: ModelProject, folder: String) async throws -> String? {
        let manifest = folder + "/pipeline.yml"
        switch action {
        case .deadEndpoint, .interrupt:
            let before = try ModelOutcome.read(folder)
            if case .interrupt(let lines) = action {
                // Canceled at a point of its progress (0: at once), not after a time a busy machine stretches.
                let progress = Mutex((lines: 0, ended: false))
                let run = Task {
                    let outcome = await CLIHarness.run(["run", manifest], said: { text in progress.withLock { $0.lines += text.filter { $0 == "\n" }.count } })
                    progress.withLock { $0.ended = true }
                    return outcome
                }
                await eventually(within: .seconds(60)) { progress.withLock { $0.lines >= lines || $0.ended } }
                run.cancel()
                _ = await run.value
            } else {
                // Signed as for a real service; the timeout keeps its retries short.
                let dead = await CLIHarness.run(["run", manifest, "--endpoint", "http://127.0.0.1:1", "--timeout", "1s"], environment: ["TRANSLOADIT_SECRET": "model-secret"])
                if dead.status == 0 { return "a run against a dead endpoint succeeded" }
            }
            let after = try ModelOutcome.read(folder)
            // A canceled run may have finished some work first: it may add, never lose.
            if case .deadEndpoint = action, after != before { return "a failed run changed the last good outcome:\n\(Self.difference(before, after))" }
            if case .interrupt = action, let lost = Self.lost(before, after) { return "a canceled run lost what the last good run had: \(lost)" }
            return nil
        default:
            let run = await CLIHarness.run(["run", manifest])
            guard run.status == 0 else { return "the run failed (\(run.status)): \(run.stderr.suffix(600))" }
            let incremental = try ModelOutcome.read(folder)
            let clean = try await cleanOutcome(of: project)
            return incremental == clean ? nil : "the incremental run differs from a clean run:\n\(Self.difference(clean, incremental))"
        }
    }

    /// The outcome of a clean run of `project` in a fresh folder.
    private func cleanOutcome(of project: ModelProject) async throws -> String {
        let key = project.manifest + project.files.map { ModelAction.shown($0.path) + ":" + Data($0.data).base64EncodedString() }.sorted().joined(separator: "\n")
        if let known = cleanOutcomes[key] { return known }
        let directory = try TemporaryDirectory(prefix: "model-clean")
        defer { directory.remove() }
        try project.write(into: directory.path)
        let run = await CLIHarness.run(["run", directory.path + "/pipeline.yml"])
        guard run.status == 0 else { throw Failure(index: -1, message: "a clean run failed: \(run.stderr.suffix(600))") }
        let outcome = try ModelOutcome.read(directory.path)
        cleanOutcomes[key] = outcome
        return outcome
    }

    /// The lines only one of two outcomes has, marked `-` (expected) and `+` (found).
    static func difference(_ expected: String, _ found: String) -> String {
        let old = expected.split(separator: "\n"), new = found.split(separator: "\n")
        let removed = old.filter { !new.contains($0) }.map { "- " + $0 }, added = new.filter { !old.contains($0) }.map { "+ " + $0 }
        return (removed + added).prefix(20).joined(separator: "\n")
    }

    /// A line of `before` that `after` no longer has, if any.
    static func lost(_ before: String, _ after: String) -> String? {
        let kept = Set(after.split(separator: "\n"))
        return before.split(separator: "\n").first { !kept.contains($0) && $0.count > 2 }.map(String.init)
    }
}
