import CLinux
import Foundation
import Synchronization

/// Runs a program with an argument array (never a shell): standard input given, standard output
/// and error collected, killed when it runs past its time or its caller gives up. The one
/// process runner of the tool.
public enum ChildProcess {
    /// How a program ended.
    public struct Outcome: Sendable, Equatable {
        /// The exit status.
        public var status: Int32
        /// What it printed on standard output.
        public var stdout: String
        /// What it printed on standard error.
        public var stderr: String
    }

    /// A program that ran past its time and was killed.
    public struct TimedOut: Error, Sendable {
        /// The time it had.
        public var timeout: Duration
    }

    /// A program killed because its caller gave up on it.
    public struct Canceled: Error, Sendable {}

    /// Runs `arguments` (a path, or a name looked up in `PATH`) with `input` on standard input, on
    /// the blocking pool; a canceled task kills the program.
    public static func run(_ arguments: [String], input: Data = Data(), timeout: Duration, environment: ChildEnvironment = .tools) async throws -> Outcome {
        let canceled = Atomic(false)
        return try await withTaskCancellationHandler {
            try await BlockingPool.shared.run {
                try runBlocking(arguments, input: input, timeout: timeout, environment: environment) { canceled.load(ordering: .relaxed) }
            }
        } onCancel: {
            canceled.store(true, ordering: .relaxed)
        }
    }

    /// Runs `arguments` on the calling thread, which waits; `isCanceled` is asked every tenth of
    /// a second, and the program (with whatever it started) is killed as soon as it says yes, or
    /// once `timeout` has passed. Input is written as the program reads it, so one that reads
    /// nothing still runs into its timeout.
    @available(*, noasync, message: "blocks its thread: use run")
    public static func runBlocking(
        _ arguments: [String], input: Data = Data(), timeout: Duration, environment: ChildEnvironment = .tools,
        isCanceled: @escaping @Sendable () -> Bool = { false }
    ) throws -> Outcome {
        guard !arguments.isEmpty else { throw CocoaError(.executableNotLoadable) }
        var child = try Spawned(arguments, environment: environment.variables)
        defer { child.closeAll() }
        let deadline = ContinuousClock.now + timeout
        var written = 0, exited = false
        if input.isEmpty { child.closeInput() }
        while child.output >= 0 || child.error >= 0 {
            let canceled = isCanceled()
            if canceled || ContinuousClock.now >= deadline {
                child.kill()
                if canceled { throw Canceled() }
                throw TimedOut(timeout: timeout)
            }
            var watched = [
                pollfd(fd: child.output, events: Int16(POLLIN), revents: 0), pollfd(fd: child.error, events: Int16(POLLIN), revents: 0),
                pollfd(fd: child.input, events: Int16(POLLOUT), revents: 0), pollfd(fd: child.exited, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&watched, nfds_t(watched.count), exited ? 0 : 100)
            var received = false
            if watched[0].revents != 0 { child.drain(\.output, into: \.stdout); received = true }
            if watched[1].revents != 0 { child.drain(\.error, into: \.stderr); received = true }
            if watched[2].revents != 0 {
                // A program that exits without reading gives EPIPE here (SIGPIPE is ignored by the tool).
                let count = input.withUnsafeBytes { bytes in Foundation.write(child.input, bytes.baseAddress.map { $0 + written }, min(bytes.count - written, 64 << 10)) }
                if count > 0 { written += count }
                if (count < 0 && errno != EAGAIN && errno != EINTR) || written >= input.count { child.closeInput() }
            }
            if watched[3].revents != 0 { exited = true }
            // Exited, and nothing more comes now: a program it started may hold the pipes open.
            if exited && !received { break }
        }
        child.closeInput()
        return Outcome(status: child.waitForStatus(), stdout: String(decoding: child.stdout, as: UTF8.self), stderr: String(decoding: child.stderr, as: UTF8.self))
    }
}

/// A started program's pipes, pidfd and collected output.
private struct Spawned {
    let pid: pid_t
    var input: Int32, output: Int32, error: Int32, exited: Int32
    var stdout = Data(), stderr = Data()

    init(_ arguments: [String], environment: [String: String]?) throws {
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil] }
        defer { envp?.forEach { free($0) } }
        var input: Int32 = -1, output: Int32 = -1, error: Int32 = -1, exited: Int32 = -1
        if var envp {
            pid = pipeline_spawn(&argv, &envp, &input, &output, &error, &exited)
        } else {
            pid = pipeline_spawn(&argv, nil, &input, &output, &error, &exited)
        }
        guard pid > 0 else { throw CocoaError(.executableNotLoadable, userInfo: [NSFilePathErrorKey: arguments[0], NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT)]) }
        (self.input, self.output, self.error, self.exited) = (input, output, error, exited)
    }

    /// Reads what `pipe` holds now; closes it at its end.
    mutating func drain(_ pipe: WritableKeyPath<Spawned, Int32>, into data: WritableKeyPath<Spawned, Data>) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let descriptor = self[keyPath: pipe]
        let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { read(descriptor, bytes.baseAddress, bytes.count) } }
        if count > 0 { self[keyPath: data].append(contentsOf: buffer[0..<count]) } else { close(descriptor); self[keyPath: pipe] = -1 }
    }

    mutating func closeInput() { if input >= 0 { close(input); input = -1 } }

    /// Kills the program and whatever it started (its process group), and reaps it.
    mutating func kill() {
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
        _ = waitForStatus()
    }

    /// The exit status (or the signal that ended it), once it has ended.
    func waitForStatus() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED: the low seven bits are zero; then WEXITSTATUS is the next byte, else WTERMSIG.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    mutating func closeAll() {
        for descriptor in [input, output, error, exited] where descriptor >= 0 { close(descriptor) }
        (input, output, error, exited) = (-1, -1, -1, -1)
    }
}
