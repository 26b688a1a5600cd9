import Foundation
import TestSupport

/// One `pipeline serve` of several sharing a database and a bucket: its own data folder and log,
/// killed (SIGKILL), paused (SIGSTOP) and resumed, and started again on the same port and folder
/// (the proxy in front names its port).
final class SharedEngine: @unchecked Sendable {
    /// How the engines are told apart in messages: `engine 1`, ...
    let name: String
    /// The port it listens on, the same after a restart.
    let port: Int
    /// Where its standard error (warnings) goes: `<log>-<n>.log` for its `n`th start.
    let log: String
    private let arguments: [String]
    private let environment: [String: String]
    private var server: ServerProcess?
    private var paused = false
    private var starts = 1

    /// Starts `pipeline serve` with `arguments` (all but `--port`) on a free port.
    init(name: String, arguments: [String], environment: [String: String], log: String) throws {
        (self.name, self.arguments, self.environment, self.log) = (name, arguments, environment, log)
        let server = try ServerProcess(
            ProcessRunner.pipelineExecutable, ["serve"] + arguments + ["--port", "0"], environment: environment, errors: log + "-1.log")
        (self.server, port) = (server, server.port)
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    func url(_ path: String = "") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The process's id; nil once it was killed.
    var processIdentifier: Int32? { server.flatMap { $0.isRunning ? $0.processIdentifier : nil } }

    /// Kills it with SIGKILL: what it held in memory is gone, its claims run out.
    func kill() {
        resume()
        server?.crash()
        server = nil
    }

    /// Stops it with SIGSTOP: it holds its connections and claims but does nothing.
    func pause() {
        guard let pid = processIdentifier, !paused else { return }
        Foundation.kill(pid, SIGSTOP)
        paused = true
    }

    /// Lets a paused engine go on (SIGCONT).
    func resume() {
        guard let pid = processIdentifier, paused else { return }
        Foundation.kill(pid, SIGCONT)
        paused = false
    }

    /// Starts a killed engine again on its port and data folder.
    func restart() throws {
        guard server == nil else { return }
        starts += 1
        server = try ServerProcess(
            ProcessRunner.pipelineExecutable, ["serve"] + arguments + ["--port", String(port)], environment: environment, errors: log + "-\(starts).log")
    }

    /// Running and not paused, whatever happened to it before.
    func revive() throws {
        resume()
        if processIdentifier == nil {
            server = nil
            try restart()
        }
    }

    /// Stops it (SIGTERM) and waits.
    func stop() {
        resume()
        server?.stop()
        server = nil
    }

    /// The last lines each of its starts logged, for a failure's message.
    func logTail(lines: Int = 20) -> String {
        (1...starts).map { start in
            let text = (try? String(contentsOfFile: log + "-\(start).log", encoding: .utf8)) ?? ""  // none: nothing to show
            return "\(name) (port \(port)), start \(start):\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
