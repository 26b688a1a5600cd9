import Basics
import Client
import Foundation
import Synchronization

/// A run for people: a line per failed Assembly (with `-v`, a line per Assembly as it starts and
/// ends), retries and Template changes, and a progress line (live on the last row of a terminal,
/// every 5 s in a log); then a summary with failures first.
final class HumanRunView: RunView {
    private struct State {
        var lastProgress: ContinuousClock.Instant
        var progress: RunProgress
        var running = false
        /// The progress line last drawn, to draw again under a log line or after a resize.
        var progressLine = ""
    }

    private let output: Output
    private let interactive: Bool
    private let now: @Sendable () -> ContinuousClock.Instant
    private let started: ContinuousClock.Instant
    private let state: Mutex<State>

    private let detail: RunDetail
    /// Files are handed over where they are (the embedded engine), not uploaded.
    private let handsOver: Bool

    /// A view writing to `output`; `now` is the clock its paces and ETAs are measured by.
    init(output: Output, detail: RunDetail = .normal, handsOver: Bool = false, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.output = output
        self.detail = detail
        self.handsOver = handsOver
        self.interactive = output.terminals.error
        self.now = now
        started = now()
        state = Mutex(State(lastProgress: started - .seconds(60), progress: RunProgress(start: started, handsOver: handsOver)))
    }

    func show(_ event: RunEvent) {
        switch event {
        case .started(let assemblies, let cached, let files, let bytes):
            state.withLock { state in
                state.progress.started(assemblies: assemblies, cached: cached)
                state.running = true
            }
            guard detail != .quiet else { return }
            output.error("run: \(plural(assemblies, "Assembly", "Assemblies")) (\(cached) cached), \(plural(files, "file")), \(ByteSize(bytes: bytes))\n")
        case .created(let job, let planID, let assemblyID, let resumed):
            state.withLock { $0.progress.created() }
            // A resumed Assembly is news (an earlier run's work is picked up); a new one only with -v.
            guard (resumed && detail != .quiet) || detail == .verbose else { return showProgress() }
            log("\(resumed ? "resumed" : "created") \(job) \(planID.prefix(12)) as Assembly \(assemblyID)")
        case .uploaded(let bytes, let all):
            let at = now()
            state.withLock { $0.progress.uploaded(bytes, of: all, at: at) }
            showProgress()
        case .template(let name, let id, let action):
            log("template \(name.printable): \(action.rawValue) (\(id.printable))")
        case .warning(let message):
            log("warning: \(message)")
        case .pruned(let assemblies, let uploads, let results, let bytes):
            guard detail != .quiet else { return }
            log("engine: removed \(GarbageText.removed(assemblies: assemblies, uploads: uploads, results: results)) that no results name (\(ByteSize(bytes: bytes)) freed)")
        case .holding(let job, let planID, let reason, let wait):
            log("\(job) \(planID.prefix(12)): \(reason); every request of the run waits \(Self.seconds(wait))")
        case .redoing(let job, let planID, let reason):
            // Counted done already (cached, or ended); it is counted again when it ends.
            state.withLock { $0.progress.redoing() }
            log("\(job) \(planID.prefix(12)): runs again: \(reason)")
        case .startingOver(let job, let planID, let reason):
            guard detail != .quiet else { return }
            log("\(job) \(planID.prefix(12)): starts over: \(reason)")
        case .retrying(let job, let planID, let reason, let wait, let attempt, let attempts):
            log("\(job) \(planID.prefix(12)): \(reason); retrying in \(Self.seconds(wait)) (attempt \(attempt) of \(attempts))")
        case .phase(let phase):
            // A new phase is shown at once, in a log too: what the run does after its last Assembly is never silent.
            let news = state.withLock { $0.progress.entered(phase) }
            showProgress(force: news)
        case .finished(let entry):
            let at = now()
            let count = state.withLock { state in
                state.progress.finished(at: at)
                return (state.progress.done, state.progress.total)
            }
            guard detail == .verbose || !(entry.isCompleted || entry.isPending) else { return showProgress() }
            let outcome = entry.isCompleted ? "completed, \(plural(entry.results.values.reduce(0) { $0 + $1.count }, "result"))"
                : entry.isPending ? "left running (\(entry.status.printable))"
                : "FAILED \(entry.status.printable): \((entry.message ?? "").printable)"
            log("[\(count.0)/\(count.1)] \(entry.job) \(entry.planID.prefix(12)): \(outcome)")
        }
    }

    /// Called about once a second while the run goes on: the progress line is due every 5 s in a
    /// log even when nothing moved (a retried creation), and its rates and ETA age on a terminal.
    func tick() {
        showProgress()
    }

    /// The terminal was resized: the progress line is fitted to the new width at once.
    func resized() {
        guard interactive else { return }
        showProgress(force: true)
    }

    /// The progress line (`RunProgress`), at most every 200 ms on a terminal and every 5 s in a
    /// log, and at once when `force`d (a resize, a new phase).
    private func showProgress(force: Bool = false) {
        guard detail != .quiet else { return }
        let now = self.now()
        state.withLock { state in
            // A run with nothing to do (all cached) has no progress to show.
            guard state.running, state.progress.total > state.progress.cachedAtStart,
                  force || now - state.lastProgress >= (interactive ? .milliseconds(200) : .seconds(5)) else { return }
            state.lastProgress = now
            let line = state.progress.line(at: now)
            if interactive {
                state.progressLine = Self.fitted(line, to: Self.terminalWidth())
                output.error("\r\u{1B}[K" + state.progressLine)
            } else {
                output.error(line + "\n")
            }
        }
    }

    /// A log line: on a terminal above the progress line, which is drawn again below it at once,
    /// so the progress always stays on the last row.
    private func log(_ line: String) {
        guard interactive else { return output.error(line + "\n") }
        state.withLock { state in
            // Drawn afresh: the counts may have moved since the line was last drawn.
            if state.running, detail != .quiet, state.progress.total > state.progress.cachedAtStart {
                state.progressLine = Self.fitted(state.progress.line(at: now()), to: Self.terminalWidth())
            }
            output.error("\r\u{1B}[K" + line + "\n" + state.progressLine)
        }
    }

    /// Clears the progress line and stops drawing it, for a message that follows (after Ctrl-C,
    /// before the summary).
    func clearLine() {
        state.withLock { state in
            state.running = false
            state.progressLine = ""
            if interactive { output.error("\r\u{1B}[K") }
        }
    }

    /// The columns of the terminal on standard error; 80 when it cannot be had.
    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// `line` within `width - 1` columns (a full last column makes some terminals wrap), cut
    /// with an ellipsis: a redraw can then always clear the whole of the previous line.
    static func fitted(_ line: String, to width: Int) -> String {
        let room = max(1, width - 1)
        guard line.count > room else { return line }
        return String(line.prefix(room - 1)) + "…"
    }

    func summary(_ results: RunResults, resultsPath: String) {
        clearLine()
        let failed = results.assemblies.filter { !$0.isCompleted && !$0.isPending }
        let running = results.assemblies.filter(\.isPending).count
        let cached = results.assemblies.filter(\.cached).count
        let completed = results.assemblies.count - failed.count - cached - running
        let leftOut = results.assemblies.flatMap(\.leftOut)
        let leftOutFiles = Self.filesLeftOut(results)
        let warnings = results.assemblies.flatMap(\.warnings)
        for entry in failed {
            let assembly = entry.assemblyID.map { " (Assembly \($0))" } ?? " (no Assembly was created)"
            output.error("failed: \(entry.job) \(entry.planID.prefix(12))\(assembly): \(entry.status.printable): \((entry.message ?? "").printable)\n")
        }
        for item in leftOut {
            output.error("left out: \((item.source ?? "(no source)").printable) by step '\(item.step)': \(item.error): \(item.message)\n")
        }
        for item in warnings {
            let step = item.step.isEmpty ? "" : ", step '\(item.step)'"
            output.error("warning: \((item.source ?? "(no source)").printable)\(step): \(item.message)\n")
        }
        let seconds = (now() - started).inSeconds
        let sent = state.withLock { $0.progress.bytes }
        output.out("Run: \(completed) completed, \(cached) cached, \(failed.count) failed" + (running > 0 ? ", \(running) left running" : "")
            + (leftOut.isEmpty ? "" : ", \(plural(leftOutFiles, "file")) left out")
            + (warnings.isEmpty ? "" : ", \(plural(warnings.count, "warning"))") + ". Results: \(Self.shown(resultsPath))"
            + " (\(String(format: "%.1f", seconds)) s, \(ByteSize(bytes: sent)) \(handsOver ? "handed over" : "uploaded"))\n")
    }

    /// `path` relative to the current folder when it lies below it.
    static func shown(_ path: String) -> String {
        let folder = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }

    /// A wait as said in the log: whole seconds, tenths below one.
    static func seconds(_ wait: Duration) -> String {
        let seconds = wait.inSeconds
        return seconds < 0.95 ? String(format: "%.1f s", seconds) : "\(Int(seconds.rounded())) s"
    }
}
