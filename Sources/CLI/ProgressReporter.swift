import APIClients
import Basics
import Client
import Foundation
import Synchronization

/// Shows upload progress on standard error: a live line on a terminal, a plain line every few
/// seconds otherwise (CI logs). Counts bytes the server confirmed plus bytes in flight.
final class ProgressReporter: Sendable {
    private struct State {
        var files: [Int: UploadProgress] = [:]
        var lastRender = ContinuousClock.now - .seconds(60)
        var rendered = false
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
            guard now - state.lastRender >= (interactive ? .milliseconds(100) : .seconds(5)) else { return nil }
            state.lastRender = now
            state.rendered = true
            return Self.line(state.files, totalFiles: totalFiles)
        }
        if let line { output.error(interactive ? "\r\u{1B}[K" + line : line + "\n") }
    }

    func finish() {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.rendered || !state.files.isEmpty ? Self.line(state.files, totalFiles: totalFiles) : nil
        }
        if let line { output.error(interactive ? "\r\u{1B}[K" + line + "\n" : line + "\n") }
    }

    private static func line(_ files: [Int: UploadProgress], totalFiles: Int) -> String {
        let total = files.values.reduce(Int64(0)) { $0 + $1.total }
        let sent = files.values.reduce(Int64(0)) { $0 + min($1.total, $1.confirmed + $1.inFlight) }
        let done = files.values.filter { $0.confirmed == $0.total }.count
        let percent = total > 0 ? Int(Double(sent) * 100 / Double(total)) : 100
        return "uploading: \(done)/\(totalFiles) files, \(ByteSize(bytes: sent)) of \(ByteSize(bytes: total)) (\(percent)%)"
    }
}
