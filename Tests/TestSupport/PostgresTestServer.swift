import Foundation
import XCTest

/// A real Postgres on 127.0.0.1 for tests: Debian's server (`postgresql-15`, which
/// scripts/setup.sh installs), its cluster made by `initdb` in a temporary folder and run with
/// durability off (fsync, synchronous commit, full pages), trusting every local login. Postgres
/// refuses to run as root, so as root the folder is given to the `postgres` user and both
/// programs run as it (`setpriv`, which execs: the PID is the server's). Stopped by its PID
/// (SIGINT, a fast shutdown), its folder removed. A machine without it fails in CI, skips elsewhere.
public final class PostgresTestServer: @unchecked Sendable {
    /// The port the server listens on (127.0.0.1 only).
    public let port: Int
    /// How long `initdb` and the start took together.
    public let startup: Duration
    private let folder: TemporaryDirectory
    private let binaries: String
    private let process: Process

    /// The `postgres` database, as its superuser `postgres` (no password: trust).
    public var url: String { url(database: "postgres") }

    /// Makes a cluster and starts a server on a free port; throws (or skips, outside CI) when
    /// Postgres is not installed.
    public init() throws {
        let started = ContinuousClock.now
        binaries = try Self.requireBinaries()
        folder = try TemporaryDirectory(prefix: "postgres")
        do {
            try Self.makeCluster(binaries, in: folder.path)
            (process, port) = try Self.start(binaries, in: folder.path)
        } catch {
            folder.remove()
            throw error
        }
        startup = ContinuousClock.now - started
    }

    /// The URL of `database` on this server.
    public func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Creates the empty database `name` (letters, digits and _) and gives its URL.
    public func makeDatabase(_ name: String) throws -> String {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw Self.failure("a test database's name must be letters, digits and _, not \(name)")
        }
        let made = try ProcessRunner.run(binaries + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name])
        guard made.status == 0 else { throw Self.failure("createdb \(name) failed: \(made.stderr)") }
        return url(database: name)
    }

    /// What the server logged.
    public var log: String { (try? String(contentsOfFile: folder.path + "/server.log", encoding: .utf8)) ?? "" }  // none yet: empty

    /// Stops the server (SIGINT: a fast shutdown, SIGKILL if it lasts over 20 s) and removes its folder.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGINT)
            if !eventuallyBlocking(within: .seconds(20), { !process.isRunning }) {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        folder.remove()
    }

    deinit { stop() }

    /// The newest installed server's programs (`/usr/lib/postgresql/<version>/bin`).
    private static func requireBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])  // no folder: not installed
            .compactMap(Int.init).sorted(by: >)
        if let version = versions.first(where: { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }) {
            return "\(root)/\(version)/bin"
        }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            throw failure("Postgres is not installed (no \(root)/<version>/bin/initdb): scripts/setup.sh must install postgresql-15")
        }
        throw XCTSkip("Postgres is not installed; run scripts/setup.sh (postgresql-15)")
    }

    /// `initdb` into `folder`/data: UTF-8, C locale, trust, no sync.
    private static func makeCluster(_ binaries: String, in folder: String) throws {
        try giveToPostgresUser(folder)
        let command = asServerUser([
            binaries + "/initdb", "-D", folder + "/data", "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
            "--no-sync", "--no-instructions",
        ])
        let made = try ProcessRunner.run(command[0], Array(command.dropFirst()))
        guard made.status == 0 else { throw failure("initdb failed: \(made.stderr)") }
    }

    /// Starts the server on a free port, trying another when that one was taken meanwhile, and
    /// waits until it accepts connections.
    private static func start(_ binaries: String, in folder: String) throws -> (Process, Int) {
        var lastLog = ""
        for _ in 0..<5 {
            let port = try NginxProxy.freePort()
            let logPath = folder + "/server.log"
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            let log = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
            let command = asServerUser([
                binaries + "/postgres", "-D", folder + "/data", "-p", String(port), "-k", folder,
                "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                "-c", "shared_buffers=32MB", "-c", "max_connections=100",
            ])
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = log
            process.standardError = log
            try process.run()
            try? log.close()  // the server holds its own copy; a failed close loses nothing
            eventuallyBlocking(within: .seconds(60)) { ready(folder, port: port) || !process.isRunning }
            if ready(folder, port: port) { return (process, port) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            lastLog = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""  // no log: the message says so by being empty
            guard lastLog.contains("could not bind") || lastLog.contains("already in use") else { break }
        }
        throw failure("postgres did not start: \(lastLog)")
    }

    /// Whether the server in `folder` accepts connections on `port`: its `postmaster.pid` says
    /// `ready` on its eighth line (what `pg_ctl -w` waits for).
    private static func ready(_ folder: String, port: Int) -> Bool {
        guard let text = try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8) else { return false }  // not written yet
        let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.count > 7 && lines[3] == String(port) && lines[7] == "ready"
    }

    /// `command` run as the `postgres` user when this process is root, else as it is.
    private static func asServerUser(_ command: [String]) -> [String] {
        geteuid() == 0 ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] + command : command
    }

    /// Makes `folder` the `postgres` user's when this process is root (the server must own its data).
    private static func giveToPostgresUser(_ folder: String) throws {
        guard geteuid() == 0 else { return }
        guard let user = getpwnam("postgres") else { throw failure("there is no postgres user, which postgresql-15 makes") }
        guard chown(folder, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw failure("cannot give \(folder) to the postgres user: \(String(cString: strerror(errno)))")
        }
    }

    private static func failure(_ message: String) -> NSError {
        NSError(domain: "PostgresTestServer", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
