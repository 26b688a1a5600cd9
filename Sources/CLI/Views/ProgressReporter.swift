import APIClients
import Basics
import Client
import Foundation
import Synchronization

/// Shows upload progress on standard error: a live line on a terminal, a plain line every few
/// seconds otherwise (CI logs). Counts bytes the server confirmed plus bytes in flight, with the
/// pace of the last seconds and the time left at it.
final class ProgressReporter: Sendable {
    private struct State {
        var files: [Int: UploadProgress] = [:]
        var lastRender = ContinuousClock.now - .seconds(60)
        var rendered = false
        var sent = RateWindow(start: .now, steps: 0)
    }

    private let output: Output
    private let enabled: Bool
    private let interactive: Bool
    private let totalFiles: Int
    private let state = Mutex(State())

    init(output: Output, enabled: Bool, totalFiles: Int) {
        self.output = output
        self.enabled = enabled
        self.interactive = isatty(STDERR_FILENO) == 1
        self.totalFiles = totalFiles
    }

    func update(_ progress: UploadProgress) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.files[progress.index] = progress
            let now = ContinuousClock.now
            state.sent.record(Double(Self.sent(state.files)), at: now)
            guard now - state.lastRender >= (interactive ? .milliseconds(100) : .seconds(5)) else { return nil }
            state.lastRender = now
            state.rendered = true
            return Self.line(state.files, totalFiles: totalFiles, pace: &state.sent, now: now)
        }
        if let line { output.error(interactive ? "\r\u{1B}[K" + line : line + "\n") }
    }

    func finish() {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.rendered || !state.files.isEmpty ? Self.line(state.files, totalFiles: totalFiles, pace: &state.sent, now: .now) : nil
        }
        if let line { output.error(interactive ? "\r\u{1B}[K" + line + "\n" : line + "\n") }
    }

    /// Bytes confirmed or on the wire.
    private static func sent(_ files: [Int: UploadProgress]) -> Int64 {
        files.values.reduce(Int64(0)) { $0 + min($1.total, $1.confirmed + $1.inFlight) }
    }

    private static func line(_ files: [Int: UploadProgress], totalFiles: Int, pace: inout RateWindow, now: ContinuousClock.Instant) -> String {
        let total = files.values.reduce(Int64(0)) { $0 + $1.total }
        let sent = sent(files)
        let done = files.values.filter { $0.confirmed == $0.total }.count
        let percent = total > 0 ? Int(Double(sent) * 100 / Double(total)) : 100
        let line = "uploading: \(done)/\(totalFiles) files, \(ByteSize(bytes: sent)) of \(ByteSize(bytes: total)) (\(percent)%"
        // The pace of the last seconds, while bytes are still to go (none once they are all in).
        guard sent < total else { return line + ")" }
        let left = pace.eta(total: Double(total), at: now).map { ", \(RunProgress.format($0)) left" } ?? ""
        return line + ", \(ByteSize(bytes: Int64(max(0, pace.rate(at: now)))))/s\(left))"
    }
}
