import Foundation

/// A server started for a test: a real process listening on 127.0.0.1, stopped by its PID.
/// The process prints `PORT <n>` on standard output once it is listening.
public final class ServerProcess: @unchecked Sendable {
    /// The port the server listens on.
    public let port: Int
    private let process: Process

    /// Starts `executable` with `arguments` and waits (up to `timeout`) for its `PORT` line; its
    /// standard error goes to the file `errors` when given (a server's request log), else to the test's.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30, errors: String? = nil) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        if let errors {
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errors) ?? FileHandle.standardError
        } else {
            process.standardError = FileHandle.standardError
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read on another thread, so a server that prints nothing cannot block past the deadline.
        let collected = OutputCollector()
        let handle = output.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                collected.append(chunk)
            }
        }
        var found: Int?
        var buffer = Data()
        let started = process
        eventuallyBlocking(within: .seconds(timeout)) {
            buffer = collected.data
            let text = String(decoding: buffer, as: UTF8.self)
            // "PORT <n>" from the test peers, or "... listening on http(s)://127.0.0.1:<n>" from `pipeline serve`/`signer`.
            for line in text.split(separator: "\n") {
                if line.hasPrefix("PORT ") {
                    found = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
                } else if line.contains("listening on http"), let colon = line.lastIndex(of: ":") {
                    found = Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
            }
            return found != nil || !started.isRunning
        }
        guard let found else {
            process.terminate()
            process.waitUntilExit()
            throw NSError(domain: "ServerProcess", code: 1, userInfo: [
                NSLocalizedDescriptionKey: "\(executable) \(arguments) did not report its port: \(String(decoding: buffer, as: UTF8.self))",
            ])
        }
        port = found
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The server's process id (for signals a test sends, such as SIGSTOP).
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Whether the process has not ended (a paused one runs).
    public var isRunning: Bool { process.isRunning }

    /// Kills the server with SIGKILL at once (a crash, for the tests of what survives one).
    public func crash() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server (SIGTERM, then SIGKILL) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        // `isRunning` only changes once Foundation reaps the child, so wait for the exit itself.
        let exited = DispatchSemaphore(value: 0)
        let process = self.process
        DispatchQueue.global().async {
            process.waitUntilExit()
            exited.signal()
        }
        if exited.wait(timeout: .now() + 5) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
    }

    deinit { stop() }
}

/// Bytes a reader thread collects, read from any thread.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Data()

    func append(_ chunk: Data) { lock.withLock { stored.append(chunk) } }
    var data: Data { lock.withLock { stored } }
}
