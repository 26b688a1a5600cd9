import Foundation
import Synchronization
import TestSupport

/// What a watching process wrote to standard error so far.
final class WatchOutput: Sendable {
    private let text = Mutex("")
    func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
    var value: String { text.withLock { $0 } }
    func count(_ needle: String) -> Int { value.components(separatedBy: needle).count - 1 }

    /// The change the watcher reported after it said it was watching for the `watch`th time (from 1):
    /// the first `pipeline: ` line after that one, without its prefix; nil before it is written.
    func change(afterWatch watch: Int) -> String? {
        let lines = value.split(separator: "\n", omittingEmptySubsequences: false)
        let watching = lines.indices.filter { lines[$0].hasPrefix("pipeline: watching") }
        guard watch >= 1, watch <= watching.count else { return nil }
        return lines[(watching[watch - 1] + 1)...].first { $0.hasPrefix("pipeline: ") }.map { String($0.dropFirst("pipeline: ".count)) }
    }
}

/// `pipeline run MANIFEST --watch -v` from the binary, started in a folder; its standard error is
/// collected. The test stops it (`stop()`, or `process.terminate()` in a `defer`).
final class WatchSession {
    let process = Process()
    let output = WatchOutput()

    init(in directory: String, manifest: String = "pipeline.yml") throws {
        process.executableURL = URL(fileURLWithPath: ProcessRunner.pipelineExecutable)
        process.arguments = ["run", manifest, "--watch", "-v"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let output = output
        errors.fileHandleForReading.readabilityHandler = { output.append($0.availableData) }
        try process.run()
    }

    /// Whether `needle` was written `count` times before `deadline`.
    func waitFor(_ needle: String, count: Int, within deadline: Duration = .seconds(60)) async -> Bool {
        await eventually(within: deadline) { output.count(needle) >= count }
    }

    /// The lines written after the line of the `count`th `needle`.
    func lines(after needle: String, count: Int) -> [String] {
        let rest = output.value.components(separatedBy: needle).dropFirst(count).joined(separator: needle)
        return rest.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    /// Ctrl-C, then waits for the exit; the exit status.
    func stop() -> Int32 {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
