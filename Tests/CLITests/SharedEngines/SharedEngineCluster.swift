import Basics
import Foundation
import HTTPClient
import TestSupport
import XCTest

/// Three `pipeline serve` engines sharing one Postgres (their state) and one SeaweedFS bucket
/// (their files), behind nginx taking requests in turn, with a peer on 127.0.0.1 for
/// notifications and slow imports: what `serve --state postgres://… --store s3://…` is deployed as.
final class SharedEngineCluster: @unchecked Sendable {
    /// The Auth Key every engine takes.
    static let key = "shared-engines-key"
    /// Its secret.
    static let secret = "shared-engines-secret-5d1c"
    /// How long an engine's claims hold unrenewed.
    static let lease: Duration = .seconds(3)

    let postgres: PostgresTestServer
    let s3: S3TestServer
    /// The database the engines share.
    let database: String
    let engines: [SharedEngine]
    let nginx: NginxProxy
    /// `shared_peer.py`: the notify URL's receiver and the slow origin.
    let peer: ServerProcess
    /// The engines' data folders and logs, and the files tests make.
    let folder: TemporaryDirectory
    /// What every engine is started with, but its data folder and port.
    private let arguments: [String]
    private let environment: [String: String]
    private let http = HTTPClient()

    /// Starts everything; what started is stopped again when a later part fails.
    init() throws {
        var started: [() -> Void] = []
        do {
            let folder = try TemporaryDirectory(prefix: "shared-engines")
            started.append(folder.remove)
            let postgres = try PostgresTestServer()
            started.append(postgres.stop)
            let database = try postgres.makeDatabase("shared_engines")
            let s3 = try S3TestServer(.seaweedfs)
            started.append(s3.stop)
            let peer = try ServerProcess(try PythonPeers.require("python"), [Self.fixture("shared_peer.py")])
            started.append(peer.stop)
            let proxyPort = try NginxProxy.freePort()
            let arguments = [
                "--state", database, "--store", "s3://\(S3TestServer.bucket)/engines?endpoint=\(s3.host)",
                "--lease", "3s", "--quiet", "--allow-loopback-import", "--auth-key", Self.key, "--public-url", "http://127.0.0.1:\(proxyPort)",
            ]
            let environment = [
                "AWS_ACCESS_KEY_ID": S3TestServer.key, "AWS_SECRET_ACCESS_KEY": S3TestServer.secret, "TRANSLOADIT_SECRET": Self.secret,
            ]
            var engines: [SharedEngine] = []
            for number in 1...3 {
                let engine = try SharedEngine(
                    name: "engine \(number)", arguments: arguments + ["--data-dir", folder.path + "/engine-\(number)"], environment: environment,
                    log: folder.path + "/engine-\(number)")
                started.append(engine.stop)
                engines.append(engine)
            }
            let nginx = try NginxProxy(upstreams: engines.map(\.port), port: proxyPort)
            (self.folder, self.postgres, self.database, self.s3, self.peer, self.engines, self.nginx) = (folder, postgres, database, s3, peer, engines, nginx)
            (self.arguments, self.environment) = (arguments, environment)
        } catch {
            started.reversed().forEach { $0() }
            throw error
        }
    }

    /// Stops every process and removes the folder.
    func stop() {
        nginx.stop()
        engines.forEach { $0.stop() }
        peer.stop()
        s3.stop()
        postgres.stop()
        folder.remove()
    }

    /// Starts one more engine on the shared database and bucket, with a data folder of its own
    /// (`name`), not behind nginx; the caller stops it.
    func startEngine(_ name: String) throws -> SharedEngine {
        try SharedEngine(name: name, arguments: arguments + ["--data-dir", folder.path + "/" + name], environment: environment, log: folder.path + "/" + name)
    }

    /// Every engine running and not paused (a test before may have killed or paused one).
    func reviveAll() throws {
        for engine in engines { try engine.revive() }
    }

    /// The path of the fixture `name` (Tests/CLITests/Fixtures).
    static func fixture(_ name: String) -> String {
        PackageRoot.path + "/Tests/CLITests/Fixtures/" + name
    }

    /// Runs the fixture `name` with `arguments` in .venv's Python; its output parsed as JSON (its
    /// last line), or a failure naming what it printed.
    func python(_ name: String, _ arguments: [String]) throws -> JSONValue {
        let result = try ProcessRunner.run(try PythonPeers.require("python"), [Self.fixture(name)] + arguments)
        guard result.status == 0, let last = result.stdout.split(separator: "\n").last else {
            throw failure("\(name) ended with \(result.status): \(result.stderr.suffix(3000))")
        }
        return try JSONValue.parse(Data(last.utf8))
    }

    /// What `psql` prints for `sql` on the shared database (unaligned, tuples only).
    func psql(_ sql: String) throws -> String {
        let result = try ProcessRunner.run("/usr/bin/psql", [database, "-X", "-A", "-t", "-c", sql])
        guard result.status == 0 else { throw failure("psql \(sql): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Holds Assembly `id`'s row locked (`FOR UPDATE`, in a transaction of its own) until
    /// `releaseRowLocks`, so an engine changing the Assembly waits at that point.
    func lockRow(of id: String) async throws -> Process {
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        locker.arguments = [database, "-X", "-q", "-c", "BEGIN; SELECT 1 FROM pipeline_assemblies WHERE id = '\(id)' FOR UPDATE; SELECT pg_sleep(60);"]
        (locker.standardOutput, locker.standardError, locker.standardInput) = (FileHandle.nullDevice, FileHandle.nullDevice, FileHandle.nullDevice)
        try locker.run()
        let held = await eventually(within: .seconds(10)) { (try? self.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")) == "1" }
        guard held else { throw failure("the row of Assembly \(id) could not be locked") }
        return locker
    }

    /// Ends the transactions `lockRow` holds (their locks go), and waits for `locker`.
    func releaseRowLocks(_ locker: Process) throws {
        _ = try psql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
        locker.waitUntilExit()
    }

    /// Makes the next update of Assembly `id`'s row for which `condition` (SQL over `OLD` and
    /// `NEW`) holds wait in the database (a trigger sleeping inside it) until `end()`.
    func stallUpdates(of id: String, once condition: String) throws -> Stall {
        _ = try psql("""
            CREATE FUNCTION pipeline_test_stall() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.id = '\(id)' AND \(condition) THEN PERFORM pg_sleep(60); END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER pipeline_test_stall BEFORE UPDATE ON pipeline_assemblies FOR EACH ROW EXECUTE FUNCTION pipeline_test_stall();
            """)
        return Stall(cluster: self)
    }

    /// An update held in the database by `stallUpdates`.
    struct Stall {
        let cluster: SharedEngineCluster

        /// Cancels the held update (its transaction is rolled back) and removes the trigger.
        func end() throws {
            _ = try cluster.psql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
            _ = try cluster.psql("DROP TRIGGER pipeline_test_stall ON pipeline_assemblies; DROP FUNCTION pipeline_test_stall()")
        }
    }

    /// The JSON `url` answers with (a GET).
    func json(_ url: String, method: String = "GET", headers: [(name: String, value: String)] = []) async throws -> JSONValue {
        let response = try await http.send(HTTPRequest(method: method, url: url, headers: headers, timeouts: HTTPTimeouts(connect: .seconds(5), total: .seconds(30))))
        guard response.status == 200 else { throw failure("\(method) \(url) answered \(response.status): \(response.bodyText())") }
        return try JSONValue.parse(response.body)
    }

    /// Every engine's log tail and what nginx logged last, for a failure's message.
    var diagnostics: String {
        engines.map { $0.logTail() }.joined(separator: "\n") + "\nnginx:\n" + nginx.upstreamLog.split(separator: "\n").suffix(30).joined(separator: "\n")
    }

    private func failure(_ message: String) -> NSError {
        NSError(domain: "SharedEngineCluster", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
